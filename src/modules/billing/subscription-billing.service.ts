import { Inject, Injectable, Optional } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Price } from '../catalog/price.entity';
import { ExchangeRates } from '../currency/exchange-rates.service';
import { Outbox, OutboxEvent } from '../webhooks/outbox';
import { WebhookEventName } from '../webhooks/webhook-events';
import { discountOff } from '../../common/money';
import { periodEnd } from './billing-period';
import { InvoiceView, SubscriptionView } from './billing-views';
import { InvoiceService } from '../invoice/invoice.service';
import {
  InvoiceLineRecord,
  linesTotal,
  planName,
  priceLine,
} from './invoice-lines';
import { invoiceAmounts } from './invoice-totals';
import { amountFor, PriceTerms } from './pricing';
import {
  BillingReason,
  SubscriptionInvoice,
} from './subscription-invoice.entity';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';

import { SubscriptionItem } from './subscription-item.entity';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { billableUsage, isUsageAggregation } from './usage-aggregation';
import { UsageRecordRepository } from './usage-record.repository';

/** License keys follow a subscription's end (the licensing module implements it). */
export const SUBSCRIPTION_END_FOLLOWER = Symbol('SUBSCRIPTION_END_FOLLOWER');

export interface SubscriptionEndFollower {
  followSubscription(
    manager: EntityManager,
    orderItemId: number,
    endsAt: Date | null,
  ): Promise<unknown>;
}

/** The tax an invoice is priced by. */
export interface InvoiceTaxTerms {
  taxName: string | null;
  /** Percent, as numeric text or a number. */
  taxRate: string;
  taxNote: string | null;
  /** `stripe_tax:taxcalc_…` when a Stripe Tax calculation priced it. */
  taxRateSource: string | null;
}

const PORTAL_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

export const priceTerms = (price: Price): PriceTerms => ({
  scheme: price.scheme,
  unitPrice: price.unitPrice,
  unitPriceDecimal: price.unitPriceDecimal,
  packageSize: price.packageSize,
  tiers: price.tiers,
});

/**
 * What an item is charged per unit: the `custom_price` it was bought at, as
 * one flat unit price, or else its price's terms.
 */
export const itemTerms = (
  price: Price,
  item: Pick<SubscriptionItem, 'customUnitPrice'>,
): PriceTerms =>
  item.customUnitPrice === null
    ? priceTerms(price)
    : {
        scheme: 'standard',
        unitPrice: item.customUnitPrice,
        unitPriceDecimal: null,
        packageSize: 1,
        tiers: null,
      };

/** The purchase's repeating or forever discount, while it lasts. */
export function renewalDiscount(
  s: Subscription,
  subtotal: number,
  periodStart: Date,
): number {
  if (s.discountAmount === null || !s.discountAmountType) return 0;
  if (s.discountEndsAt && periodStart >= s.discountEndsAt) return 0;
  return discountOff(
    { amountType: s.discountAmountType, amount: s.discountAmount },
    subtotal,
  );
}

/** When the renewal sweep next has something to do for this subscription. */
export function nextActionAt(s: Subscription): Date | null {
  switch (s.status) {
    case 'on_trial':
    case 'active':
    case 'past_due':
      return s.renewsAt;
    case 'paused':
      return s.pauseResumesAt && s.pauseResumesAt < s.renewsAt
        ? s.pauseResumesAt
        : s.renewsAt;
    case 'cancelled':
      return s.endsAt;
    case 'unpaid':
    case 'expired':
      return null;
  }
}

export const periodEndOf = (s: Subscription, start = s.currentPeriodStart) =>
  periodEnd(
    start,
    { unit: s.intervalUnit, quantity: s.intervalQuantity },
    s.billingAnchor,
  );

/**
 * The shared machinery of subscriptions: rendering views, pricing a period,
 * writing invoices and recording events. Use cases in the other billing
 * services call it inside their transactions; InvoiceCollection charges
 * the invoices after those commit.
 */
@Injectable()
export class SubscriptionBilling {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly usage: UsageRecordRepository,
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly outbox: Outbox,
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rates: ExchangeRates,
    private readonly invoicePdfs: InvoiceService,
    @Optional()
    @Inject(SUBSCRIPTION_END_FOLLOWER)
    private readonly licensing: SubscriptionEndFollower | null,
  ) {}

  async views(
    manager: EntityManager | null,
    subscriptions: Subscription[],
    now: Date,
  ): Promise<SubscriptionView[]> {
    const items = await this.subscriptions.firstItems(
      manager,
      subscriptions.map((s) => s.id),
    );
    const expiresAt = new Date(now.getTime() + PORTAL_LINK_LIFETIME_MS);
    const sign = (path: string) =>
      this.signedUrls.sign(this.config.http.publicBaseUrl, path, {
        expiresAt,
      });
    return subscriptions.map((s) => ({
      // oxlint-disable-next-line typescript/no-misused-spread
      ...s,
      firstItem: items.get(s.id) ?? null,
      urls: {
        update_payment_method: sign(
          `/portal/subscriptions/${s.id}/payment-method`,
        ),
        customer_portal: sign(`/portal/customers/${s.customerId}`),
        customer_portal_update_subscription: sign(
          `/portal/subscriptions/${s.id}`,
        ),
      },
    }));
  }

  invoiceView(invoice: SubscriptionInvoice): InvoiceView {
    return {
      // oxlint-disable-next-line typescript/no-misused-spread
      ...invoice,
      // Unscoped and non-expiring (DESIGN section 6): the signature is the credential.
      invoiceUrl:
        invoice.status === 'pending'
          ? null
          : this.invoicePdfs.link('subscription-invoices', invoice.id, null),
    };
  }

  /** Quantity-priced items cost their amount for the period ahead. */
  async advanceAmount(
    manager: EntityManager,
    items: SubscriptionItem[],
  ): Promise<number> {
    const prices = await this.pricesOf(manager, items);
    return items
      .filter((item) => !item.isUsageBased)
      .reduce(
        (sum, item) =>
          sum +
          amountFor(itemTerms(prices.get(item.priceId)!, item), item.quantity),
        0,
      );
  }

  /**
   * What a renewal charges, one line per item: quantity items for the period
   * ahead, metered items for the usage of the period that ended (in arrears;
   * none after a trial).
   */
  async renewalCharges(
    manager: EntityManager,
    s: Subscription,
    items: SubscriptionItem[],
    withUsage: boolean,
  ): Promise<InvoiceLineRecord[]> {
    const prices = await this.pricesOf(manager, items);
    const name = planName(s.productName, s.variantName);
    const lines: InvoiceLineRecord[] = [];
    for (const item of items) {
      const price = prices.get(item.priceId)!;
      if (!item.isUsageBased) {
        lines.push(priceLine(name, item.quantity, itemTerms(price, item)));
      } else if (withUsage) {
        const used = await this.usageQuantity(
          manager,
          item,
          price,
          s.currentPeriodStart,
        );
        lines.push(priceLine(`${name} - usage`, used, priceTerms(price)));
      }
    }
    return lines;
  }

  async usageQuantity(
    manager: EntityManager | null,
    item: SubscriptionItem,
    price: Price,
    periodStart: Date,
  ): Promise<number> {
    const aggregation = isUsageAggregation(price.usageAggregation)
      ? price.usageAggregation
      : 'sum';
    const period = await this.usage.periodUsage(manager, item.id, periodStart);
    const previous =
      aggregation === 'last_ever' && !period
        ? await this.usage.previousTotal(manager, item.id, periodStart)
        : null;
    return billableUsage(aggregation, period, previous);
  }

  private async pricesOf(manager: EntityManager, items: SubscriptionItem[]) {
    const prices = await this.subscriptions.prices(manager, [
      ...new Set(items.map((i) => i.priceId)),
    ]);
    return new Map(prices.map((p) => [p.id, p]));
  }

  /**
   * A new invoice in `pending`, totals computed from the subscription's
   * frozen tax terms, or from `tax` when the renewal was priced afresh
   * (Stripe Tax, see RenewalTax).
   */
  async createInvoice(
    manager: EntityManager,
    s: Subscription,
    input: {
      reason: BillingReason;
      /** The subtotal is their sum. */
      lines: InvoiceLineRecord[];
      discountTotal?: number;
      periodStart: Date;
      periodEnd: Date;
      now: Date;
      tax?: InvoiceTaxTerms | null;
    },
  ): Promise<SubscriptionInvoice> {
    const tax: InvoiceTaxTerms = input.tax ?? {
      taxName: s.taxName,
      taxRate: s.taxRate,
      taxNote: s.taxNote,
      taxRateSource: null,
    };
    const usd = await this.rates.usdRate(s.currency, manager);
    const subtotal = linesTotal(input.lines);
    if (subtotal < 0) throw new Error('An invoice subtotal cannot be negative');
    const amounts = invoiceAmounts({
      lines: input.lines,
      discountTotal: input.discountTotal ?? 0,
      taxRate: tax.taxRate,
      taxInclusive: s.taxInclusive,
      currency: s.currency,
      usdRate: usd.rate,
    });
    return this.invoices.insert(manager, {
      storeId: s.storeId,
      testMode: s.testMode,
      subscriptionId: s.id,
      customerId: s.customerId,
      userName: s.userName,
      userEmail: s.userEmail,
      billingReason: input.reason,
      cardBrand: s.cardBrand,
      cardLastFour: s.cardLastFour,
      currency: s.currency,
      currencyRate: String(usd.rate),
      currencyRateDate: usd.date,
      status: 'pending',
      refundedAt: null,
      ...amounts,
      taxInclusive: s.taxInclusive,
      ...tax,
      lines: input.lines,
      refundedAmount: 0,
      refundedAmountUsd: 0,
      periodStart: input.periodStart,
      periodEnd: input.periodEnd,
      paymentReference: null,
      failureReason: null,
      createdAt: input.now,
      updatedAt: input.now,
    });
  }

  /** The subscription's end moved: its license keys follow it. */
  async endChanged(manager: EntityManager, s: Subscription): Promise<void> {
    await this.licensing?.followSubscription(manager, s.orderItemId, s.endsAt);
  }

  /** Keeps `next_action_at` in step and saves. */
  async save(manager: EntityManager, s: Subscription, now: Date) {
    s.nextActionAt = nextActionAt(s);
    s.updatedAt = now;
    return this.subscriptions.save(manager, s);
  }

  async emit(
    manager: EntityManager,
    names: WebhookEventName[],
    s: Subscription,
    now: Date,
    detail?: OutboxEvent<unknown>['detail'],
  ) {
    const [view] = await this.views(manager, [s], now);
    for (const name of names) {
      await this.outbox.record(manager, {
        name,
        storeId: s.storeId,
        testMode: s.testMode,
        resource: 'subscriptions',
        record: view,
        customData: s.customData,
        detail,
      });
    }
  }

  async emitInvoice(
    manager: EntityManager,
    name: WebhookEventName,
    invoice: SubscriptionInvoice,
    s: Subscription,
    detail?: OutboxEvent<unknown>['detail'],
  ) {
    await this.outbox.record(manager, {
      detail,
      name,
      storeId: invoice.storeId,
      testMode: invoice.testMode,
      resource: 'subscription-invoices',
      record: this.invoiceView(invoice),
      customData: s.customData,
    });
  }
}
