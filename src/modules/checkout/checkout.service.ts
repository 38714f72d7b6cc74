import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { parseIntegerId } from '../../common/ids';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { invalid } from '../../common/validation-messages';
import { formatMoney } from '../../common/money';
import { parseTimestamp } from '../../common/timestamps';
import type { WriteDocument } from '../../common/write-document';
import { Variant } from '../catalog/variant.entity';
import {
  checkoutData,
  checkoutOptions,
  productOptions,
} from './checkout-input';
import { Checkout } from './checkout.entity';
import { CreateCheckoutAttributes } from './checkout.dto';
import { CheckoutRepository, PurchaseTarget } from './checkout.repository';
import { Offer } from './purchase.service';
import { PurchaseQuotes } from './purchase-quotes';
import { CheckoutErrors } from './checkout.errors';

/**
 * `preview` of a created checkout (the 17 keys of the SDK's `Preview`, the
 * setup fee's three included), or false when not requested.
 */
export type CheckoutPreview = Record<string, string | number> | false;

export type CheckoutView = Checkout & { preview: CheckoutPreview };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function relationshipId(value: string | string[] | undefined) {
  return typeof value === 'string' ? parseIntegerId(value) : null;
}

@Injectable()
export class CheckoutService {
  constructor(
    private readonly checkouts: CheckoutRepository,
    private readonly quotes: PurchaseQuotes,
    private readonly clock: Clock,
  ) {}

  async create(
    principal: Principal,
    document: WriteDocument<CreateCheckoutAttributes>,
  ): Promise<CheckoutView> {
    const input = document.attributes;
    const storeId = relationshipId(document.relationships.store);
    if (
      storeId === null ||
      !(await this.checkouts.storeOwned(principal, storeId))
    )
      throw CheckoutErrors.storeNotFound();
    const variantId = relationshipId(document.relationships.variant);
    const variant =
      variantId === null
        ? null
        : await this.checkouts.visibleVariant(principal, variantId);
    if (!variant) throw CheckoutErrors.variantNotFound();
    if (variant.storeId !== storeId) throw CheckoutErrors.variantOfOtherStore();
    if (
      input.test_mode !== undefined &&
      input.test_mode !== principal.testMode
    ) {
      throw CheckoutErrors.testModeMismatch(
        `A ${principal.testMode ? 'test' : 'live'}-mode API key creates ${principal.testMode ? 'test' : 'live'}-mode checkouts only.`,
      );
    }
    let expiresAt: Date | null = null;
    if (input.expires_at !== undefined && input.expires_at !== null) {
      expiresAt = parseTimestamp(input.expires_at);
      if (!expiresAt)
        throw CheckoutErrors.invalidAttribute(
          'expires_at',
          invalid.timestamp('expires_at'),
        );
      // Its URL would be dead on arrival.
      if (expiresAt <= this.clock.now())
        throw CheckoutErrors.invalidAttribute(
          'expires_at',
          invalid.future('expires_at'),
        );
    }
    const product = productOptions(input.product_options);
    const options = checkoutOptions(input.checkout_options);
    const data = checkoutData(input.checkout_data);
    const target = await this.checkouts.targetOf(
      storeId,
      principal.testMode,
      variant.id,
    );
    if (!target) throw CheckoutErrors.variantNotSellable();
    const choiceIds = new Set(target.choices.map((v) => v.id));
    product.enabled_variants.forEach((id, i) => {
      if (!choiceIds.has(id))
        throw CheckoutErrors.enabledVariantNotPurchasable(i, id);
    });
    if (
      product.enabled_variants.length > 0 &&
      !product.enabled_variants.includes(variant.id)
    )
      throw CheckoutErrors.enabledVariantsWithoutOwn();
    data.variant_quantities.forEach((entry, i) => {
      if (!choiceIds.has(entry.variant_id))
        throw CheckoutErrors.quantityOfOtherProduct(i, entry.variant_id);
    });

    const now = this.clock.now();
    const checkout = this.checkouts.create({
      id: randomUUID(),
      storeId,
      variantId: variant.id,
      testMode: principal.testMode,
      customPrice: input.custom_price ?? null,
      productOptions: product,
      checkoutOptions: options,
      checkoutData: data,
      expiresAt,
      createdAt: now,
      updatedAt: now,
    });
    const preview = input.preview
      ? await this.preview(this.offer(checkout, target), now)
      : false;
    await this.checkouts.save(checkout);
    return Object.assign(checkout, { preview });
  }

  /** What the prefilled checkout would cost; an unusable prefilled code is left out. */
  private async preview(offer: Offer, now: Date): Promise<CheckoutPreview> {
    const data = offer.checkout!.checkoutData;
    const { totals } = await this.quotes.quote(
      offer,
      {
        country: data.billing_address.country,
        zip: data.billing_address.zip,
        taxNumber: data.tax_number,
        discountCode: data.discount_code,
      },
      now,
    );
    const money = (cents: number) => formatMoney(cents, totals.currency);
    return {
      currency: totals.currency,
      currency_rate: totals.currencyRate,
      subtotal: totals.subtotal,
      discount_total: totals.discountTotal,
      tax: totals.tax,
      setup_fee: totals.setupFee,
      total: totals.total,
      subtotal_usd: totals.subtotalUsd,
      discount_total_usd: totals.discountTotalUsd,
      tax_usd: totals.taxUsd,
      setup_fee_usd: totals.setupFeeUsd,
      total_usd: totals.totalUsd,
      subtotal_formatted: money(totals.subtotal),
      discount_total_formatted: money(totals.discountTotal),
      tax_formatted: money(totals.tax),
      setup_fee_formatted: money(totals.setupFee),
      total_formatted: money(totals.total),
    };
  }

  private offer(checkout: Checkout | null, target: PurchaseTarget): Offer {
    const enabled = checkout?.productOptions.enabled_variants ?? [];
    const variants = target.choices.filter(
      (v: Variant) => enabled.length === 0 || enabled.includes(v.id),
    );
    return {
      checkout,
      target,
      testMode: checkout?.testMode ?? target.variant.testMode,
      variants,
    };
  }

  /** The offer at a checkout URL (whose signature the caller has checked). */
  async offerForCheckout(id: string): Promise<Offer> {
    const checkout = UUID.test(id) ? await this.checkouts.findById(id) : null;
    if (!checkout) throw CheckoutErrors.checkoutNotFound();
    if (checkout.expiresAt && checkout.expiresAt <= this.clock.now())
      throw CheckoutErrors.checkoutExpired();
    const target = await this.checkouts.targetOf(
      checkout.storeId,
      checkout.testMode,
      checkout.variantId,
    );
    if (!target) throw CheckoutErrors.noLongerForSale();
    return this.offer(checkout, target);
  }

  /**
   * The offer an order was bought at, for the page to show again (a
   * declined hosted payment): its checkout, else its variant's buy link.
   * Null when it is no longer for sale.
   */
  async offerForOrder(order: {
    storeId: number;
    testMode: boolean;
    checkoutId: string | null;
    firstItem: { variantId: number } | null;
  }): Promise<Offer | null> {
    if (order.checkoutId) {
      const checkout = await this.checkouts.findById(order.checkoutId);
      if (!checkout) return null;
      const target = await this.checkouts.targetOf(
        checkout.storeId,
        checkout.testMode,
        checkout.variantId,
      );
      return target ? this.offer(checkout, target) : null;
    }
    if (!order.firstItem) return null;
    const target = await this.checkouts.targetOf(
      order.storeId,
      order.testMode,
      order.firstItem.variantId,
    );
    return target ? this.offer(null, target) : null;
  }

  /** The offer at a variant's buy_now_url. */
  async offerForVariant(uuid: string): Promise<Offer> {
    const target = UUID.test(uuid)
      ? await this.checkouts.targetByUuid(uuid)
      : null;
    if (!target) throw CheckoutErrors.notForSale();
    return this.offer(null, target);
  }

  async findOne(
    principal: Principal,
    id: string,
  ): Promise<CheckoutView | null> {
    if (!UUID.test(id)) return null;
    const [checkout] = await this.checkouts.findVisible(principal, [id]);
    return checkout
      ? Object.assign(checkout, { preview: false as const })
      : null;
  }

  async findMany(principal: Principal, ids: string[]): Promise<CheckoutView[]> {
    const checkouts = await this.checkouts.findVisible(
      principal,
      ids.filter((id) => UUID.test(id)),
    );
    return checkouts.map((c) => Object.assign(c, { preview: false as const }));
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<CheckoutView>> {
    const page = await this.checkouts.findPage(principal, query);
    return {
      records: page.records.map((c) =>
        Object.assign(c, { preview: false as const }),
      ),
      total: page.total,
    };
  }

  async findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<CheckoutView[]> {
    if (filter !== 'store_id' && filter !== 'variant_id')
      throw new Error(`checkouts cannot be listed by ${filter}`);
    const checkouts = await this.checkouts.findBy(principal, filter, values);
    return checkouts.map((c) => Object.assign(c, { preview: false as const }));
  }
}
