import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError, ErrorDetail } from '../../common/app-error';
import { Clock } from '../../common/clock';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/transactions';
import { Price } from '../catalog/price.entity';
import { setupFeeAtSignup, unitPriceAtSignup } from '../catalog/signup-charge';
import { Variant } from '../catalog/variant.entity';
import { ExchangeRates, UsdRate } from '../currency/exchange-rates.service';
import { CustomerService } from '../customer/customer.service';
import { AppliedDiscount, DiscountService } from '../discount/discount.service';
import { OrderView } from '../order/order.repository';
import { OrderService } from '../order/order.service';
import { ChargeResult } from '../payment/payment-gateway';
import { PaymentGateways } from '../payment/payment-gateways';
import { isCountryCode } from '../../common/country-codes';
import { Checkout } from './checkout.entity';
import { PurchaseTarget } from './checkout.repository';
import { computeTotals, Totals } from './pricing';
import { PurchaseExtensions } from './purchase-extension';
import { PurchaseInput } from './purchase-input';
import { chosenUnitPrice, MAX_CENTS } from './unit-price';
import { CheckoutErrors, invalidInput } from './checkout.errors';
import { cardNumberRequired } from '../payment/payment.errors';

// Loose on purpose (RFC 5322 allows far more); the customer module checks it too.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_QUANTITY = 1000;

/** What is for sale at a checkout URL or a variant's buy_now_url. */
export interface Offer {
  checkout: Checkout | null;
  target: PurchaseTarget;
  testMode: boolean;
  /** The variants the buyer may pick from, in display order. */
  variants: Variant[];
}

export interface Quote {
  variant: Variant;
  price: Price;
  quantity: number;
  unitPrice: number;
  totals: Totals;
  /** The exchange rate the totals' `_usd` figures used, with its day. */
  usdRate: UsdRate;
  discount: AppliedDiscount | null;
  /** Why the entered code was not applied (quotes only; a purchase throws instead). */
  discountRefusal: string | null;
}

export type PurchaseResult =
  | { status: 'paid'; order: OrderView }
  | { status: 'declined'; order: OrderView; reason: string };

/**
 * Turns a checkout into an order: prices it, charges it and writes the whole
 * purchase in one transaction. Billing and licensing add their records
 * through PurchaseExtensions.
 */
@Injectable()
export class PurchaseService {
  constructor(
    private readonly orders: OrderService,
    private readonly customers: CustomerService,
    private readonly discounts: DiscountService,
    private readonly gateways: PaymentGateways,
    private readonly rates: ExchangeRates,
    private readonly extensions: PurchaseExtensions,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The variant the buyer chose, or the offer's own. */
  selectVariant(offer: Offer, variantId: string | undefined): Variant {
    if (variantId === undefined || variantId === '')
      return offer.target.variant;
    const chosen = offer.variants.find((v) => String(v.id) === variantId);
    if (!chosen) throw CheckoutErrors.variantNotOffered();
    return chosen;
  }

  defaultQuantity(offer: Offer, variant: Variant): number {
    const preset = offer.checkout?.checkoutData.variant_quantities.find(
      (entry) => entry.variant_id === variant.id,
    );
    return preset?.quantity ?? offer.checkout?.checkoutOptions.quantity ?? 1;
  }

  /**
   * Prices the offer for this input. Without a manager an unusable discount
   * code is reported in `discountRefusal`; with one (the purchase) the
   * discount row is locked and a refusal is a 422.
   */
  async quote(
    offer: Offer,
    input: PurchaseInput,
    now: Date,
    manager?: EntityManager,
  ): Promise<Quote> {
    const variant = this.selectVariant(offer, input.variantId);
    const price = offer.target.prices.get(variant.id);
    if (!price) throw CheckoutErrors.variantWithoutPrice();
    const quantity = this.quantity(offer, variant, input.quantity);
    const store = offer.target.store;
    const usdRate = await this.rates.usdRate(store.currency, manager);
    const listed = chosenUnitPrice(
      price,
      offer.checkout?.customPrice ?? null,
      input.amount,
      store.currency,
    );
    const unitPrice = unitPriceAtSignup(
      price,
      offer.checkout?.checkoutOptions.skip_trial ?? false,
      listed,
    );
    const subtotal = unitPrice * quantity;
    let discount: AppliedDiscount | null = null;
    let discountRefusal: string | null = null;
    const code = input.discountCode?.trim();
    if (code) {
      try {
        discount = await this.discounts.apply(
          {
            storeId: store.id,
            testMode: offer.testMode,
            code,
            variantId: variant.id,
            subtotal,
            now,
          },
          manager,
        );
      } catch (error) {
        if (manager || !(error instanceof AppError)) throw error;
        discountRefusal = error.errors[0].detail;
      }
    }
    const country = input.country?.trim().toUpperCase() ?? '';
    const totals = computeTotals({
      currency: store.currency,
      currencyRate: usdRate.rate,
      unitPrice,
      quantity,
      setupFee: setupFeeAtSignup(price),
      discount: discount?.amount ?? 0,
      tax: this.config.money.taxRates[country] ?? null,
      taxInclusive: this.config.money.taxInclusive,
    });
    const { subtotal: gross, subtotalUsd, total, totalUsd } = totals;
    if (Math.max(gross, subtotalUsd, total, totalUsd) > MAX_CENTS)
      throw CheckoutErrors.totalTooLarge();
    return {
      variant,
      price,
      quantity,
      unitPrice,
      totals,
      usdRate,
      discount,
      discountRefusal,
    };
  }

  /**
   * The purchase, in one transaction: discount (locked, limit checked),
   * customer, charge, order with its items, redemption, the order's number,
   * `order_created`, then the registered extensions. A declined card commits
   * only a `failed` order (and its customer) and fires nothing.
   */
  async purchase(offer: Offer, input: PurchaseInput): Promise<PurchaseResult> {
    const buyer = this.buyer(input);
    // Refuse a live purchase before anything is written.
    const gateway = this.gateways.forMode(offer.testMode);
    // One identifier across deadlock retries: the gateway treats it as the idempotency key.
    const identifier = randomUUID();
    return this.transactions.run(async (manager) => {
      const now = this.clock.now();
      const quote = await this.quote(offer, input, now, manager);
      const { totals } = quote;
      const cardNumber = input.cardNumber?.trim();
      // A subscription needs a card on file even when its first order is free
      // (trial, usage-based): renewals charge it.
      const subscribes = quote.price.category === 'subscription';
      if ((totals.total > 0 || subscribes) && !cardNumber)
        throw cardNumberRequired();
      const { store, product } = offer.target;
      const customer = await this.customers.findOrCreateForPurchase(manager, {
        storeId: store.id,
        testMode: offer.testMode,
        email: buyer.email,
        name: buyer.name,
        country: buyer.country,
      });
      let charge: ChargeResult | null = null;
      if (totals.total > 0 || subscribes) {
        // A zero amount verifies the card and saves it for renewals.
        charge = await gateway.charge({
          reference: identifier,
          amount: totals.total,
          currency: totals.currency,
          source: { cardNumber: cardNumber! },
          description: `${store.name}: ${product.name}`,
        });
      }
      const declined = charge?.status === 'declined';
      const { order, items } = await this.orders.createInTransaction(
        manager,
        {
          identifier,
          storeId: store.id,
          customerId: customer.id,
          testMode: offer.testMode,
          userName: buyer.name,
          userEmail: buyer.email,
          currency: totals.currency,
          currencyRate: totals.currencyRate,
          currencyRateDate: quote.usdRate.date,
          taxName: totals.taxName,
          taxRate: totals.taxRate,
          taxInclusive: totals.taxInclusive,
          status: declined ? 'failed' : 'paid',
          subtotal: totals.subtotal,
          discountTotal: totals.discountTotal,
          tax: totals.tax,
          setupFee: totals.setupFee,
          total: totals.total,
          subtotalUsd: totals.subtotalUsd,
          discountTotalUsd: totals.discountTotalUsd,
          taxUsd: totals.taxUsd,
          setupFeeUsd: totals.setupFeeUsd,
          totalUsd: totals.totalUsd,
          billingCountry: buyer.country,
          billingZip: input.zip?.trim() || null,
          taxNumber: input.taxNumber?.trim() || null,
          checkoutId: offer.checkout?.id ?? null,
          customData: customDataOf(offer.checkout),
          paymentReference:
            charge?.status === 'succeeded' ? charge.paymentId : null,
          failureReason: charge?.status === 'declined' ? charge.reason : null,
        },
        [
          {
            productId: product.id,
            variantId: quote.variant.id,
            priceId: quote.price.id,
            productName: product.name,
            variantName: quote.variant.name,
            price: quote.unitPrice,
            quantity: quote.quantity,
          },
        ],
        now,
      );
      if (charge?.status === 'declined') {
        await this.orders.assignNumber(manager, order);
        return { status: 'declined', order, reason: charge.reason };
      }

      if (quote.discount)
        await this.discounts.redeem(manager, quote.discount, order, now);
      // Numbering holds the store's order-number lock until the commit, so
      // it comes as late as it can, in the statement that records
      // order_created (which carries the number and goes out before the
      // extensions' events).
      await this.orders.assignNumberAndRecordCreated(manager, order);
      await this.extensions.run({
        manager,
        now,
        testMode: offer.testMode,
        store,
        customer,
        order,
        items: items.map((orderItem) => ({
          orderItem,
          product,
          variant: quote.variant,
          price: quote.price,
          quantity: orderItem.quantity,
        })),
        discount: quote.discount,
        checkout: offer.checkout,
        customData: order.customData,
        payment:
          charge?.status === 'succeeded'
            ? { paymentId: charge.paymentId, method: charge.method }
            : null,
      });
      return { status: 'paid', order };
    });
  }

  private quantity(offer: Offer, variant: Variant, raw: string | undefined) {
    if (raw === undefined || raw === '')
      return this.defaultQuantity(offer, variant);
    const quantity = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!(quantity >= 1 && quantity <= MAX_QUANTITY))
      throw CheckoutErrors.invalidQuantity(MAX_QUANTITY);
    return quantity;
  }

  /** The buyer's details, all checked at once so a form shows every problem. */
  private buyer(input: PurchaseInput) {
    const errors: ErrorDetail[] = [];
    const email = input.email?.trim() ?? '';
    const name = input.name?.trim() ?? '';
    const country = input.country?.trim().toUpperCase() ?? '';
    if (!EMAIL.test(email) || email.length > 255)
      errors.push(invalidInput('email', 'Enter a valid email address.'));
    if (!name || name.length > 255)
      errors.push(
        invalidInput('name', 'Enter your name (at most 255 characters).'),
      );
    if (!isCountryCode(country))
      errors.push(
        invalidInput(
          'billing_address/country',
          'Choose the billing country (a two-letter code such as US).',
        ),
      );
    if ((input.zip?.length ?? 0) > 32)
      errors.push(
        invalidInput('billing_address/zip', 'The ZIP code is too long.'),
      );
    if ((input.taxNumber?.length ?? 0) > 64)
      errors.push(invalidInput('tax_number', 'The tax number is too long.'));
    if (errors.length > 0) throw CheckoutErrors.invalidPurchase(errors);
    return { email, name, country };
  }
}

function customDataOf(checkout: Checkout | null) {
  const custom = checkout?.checkoutData.custom;
  return custom && Object.keys(custom).length > 0 ? custom : null;
}
