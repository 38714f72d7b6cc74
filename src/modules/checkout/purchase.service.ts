import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/transactions';
import { CatalogService } from '../catalog/catalog.service';
import { CustomerService } from '../customer/customer.service';
import { Customer } from '../customer/customer.entity';
import { DiscountService } from '../discount/discount.service';
import { Order } from '../order/order.entity';
import { OrderView } from '../order/order.repository';
import { OrderService } from '../order/order.service';
import { PaymentAttempt } from '../payment/payment-attempt.entity';
import { PaymentAttempts } from '../payment/payment-attempts';
import type { PaymentMethod } from '../payment/payment-gateway';
import { PaymentGateways } from '../payment/payment-gateways';
import {
  cardNumberRequired,
  hostedPaymentRequired,
} from '../payment/payment.errors';
import { StripeCheckoutIntents } from '../payment/stripe-checkout-intents';
import { StripePaymentGateway } from '../payment/stripe-payment-gateway';
import { TaxEngine } from '../tax/tax-engine';
import { Checkout } from './checkout.entity';
import type { Offer } from './offer-selection';
import { PurchaseExtensions } from './purchase-extension';
import { buyerOf, PurchaseInput } from './purchase-input';
import { PurchaseQuotes, Quote } from './purchase-quotes';
import { PURCHASE, PurchaseRecords } from './purchase-settlement';

export type { Offer } from './offer-selection';

export type PurchaseResult =
  | { status: 'paid'; order: OrderView }
  | { status: 'declined'; order: OrderView; reason: string };

/**
 * Turns a checkout into an order: prices it (PurchaseQuotes), records it pending, charges it
 * outside any transaction and settles it. Billing and licensing add their
 * records through PurchaseExtensions.
 */
@Injectable()
export class PurchaseService {
  constructor(
    private readonly orders: OrderService,
    private readonly customers: CustomerService,
    private readonly discounts: DiscountService,
    private readonly gateways: PaymentGateways,
    private readonly attempts: PaymentAttempts,
    private readonly intents: StripeCheckoutIntents,
    private readonly catalog: CatalogService,
    private readonly quotes: PurchaseQuotes,
    private readonly extensions: PurchaseExtensions,
    private readonly taxes: TaxEngine,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /**
   * The purchase, in two transactions with the processor called between
   * them, never inside one. The first prices the offer (discount locked,
   * limit checked) and writes the customer, the order with its items and
   * number, and the discount's redemption, and stores the charge as a
   * pending payment attempt; the order is `pending`. The charge then goes to
   * the processor under the order's identifier as idempotency key, and the
   * second transaction settles the order (`settlePurchase`): `paid` with
   * `order_created` and the registered extensions, or `failed` (the
   * redemption given back, nothing fired). A crash in between is settled
   * by the payment sweeper from the stored attempt. An order that charges
   * nothing is written paid in the first transaction.
   */
  async purchase(offer: Offer, input: PurchaseInput): Promise<PurchaseResult> {
    buyerOf(input);
    // Refuse a live purchase before anything is written.
    const gateway = await this.gateways.forStore(
      offer.target.store.id,
      offer.testMode,
    );
    const cardNumber = input.cardNumber?.trim();
    // Only the reusable payment method is stored and charged, never the
    // number; an invalid number is refused before anything is written.
    const method = cardNumber
      ? await gateway.paymentMethodOf(cardNumber)
      : null;
    const identifier = randomUUID();
    const begun = await this.begin(offer, input, identifier, method).catch(
      (error: unknown) => {
        // A Stripe store takes cards only on its hosted page.
        if (
          gateway instanceof StripePaymentGateway &&
          error instanceof AppError &&
          error.errors.some((e) => e.code === 'card_number_required')
        )
          throw hostedPaymentRequired();
        throw error;
      },
    );
    if (!begun.attempt) return { status: 'paid', order: begun.order };
    // The settlement's records are the ones this purchase was priced with.
    const records: PurchaseRecords = {
      order: begun.order,
      discount: begun.quote.discount,
      store: offer.target.store,
      customer: begun.customer,
      product: offer.target.product,
      variant: begun.quote.variant,
      price: begun.quote.price,
      checkout: offer.checkout,
    };
    const outcome = await this.attempts.complete(begun.attempt, {
      gateway,
      prepared: records,
    });
    // The settlement updated the order it was given; it is read again only
    // when another caller (the sweeper) settled it first.
    const order =
      begun.order.status === 'pending'
        ? (await this.orders.findByIdentifier(identifier))!
        : begun.order;
    if (outcome.status === 'declined')
      return { status: 'declined', order, reason: outcome.reason };
    return { status: 'paid', order };
  }

  /**
   * The purchase's first transaction: the order `identifier` pending (or
   * paid when it charges nothing), its customer, items, number and
   * redemption, and its payment attempt: a charge of `method`, or with
   * `'intent'` an intent attempt the buyer confirms in the browser (the
   * hosted checkout's Stripe Payment Element), settled by
   * `PaymentAttempts.settleIntent`.
   */
  async begin(
    offer: Offer,
    input: PurchaseInput,
    identifier: string,
    method: PaymentMethod | 'intent' | null,
  ): Promise<{
    order: OrderView;
    attempt: PaymentAttempt | null;
    customer: Customer;
    quote: Quote;
  }> {
    const buyer = buyerOf(input);
    // VIES (online mode) is asked here, never inside the transaction.
    const numberCheck = await this.taxes.verify(
      buyer.country,
      input.taxNumber?.trim() || null,
    );
    // Stripe Tax (a network call) prices the sale here, before the
    // transaction, which reuses the calculation for the same amount.
    const calculated =
      offer.target.store.taxProvider === 'stripe'
        ? ((
            await this.quotes.quote(
              offer,
              input,
              this.clock.now(),
              undefined,
              numberCheck,
            )
          ).tax.calculated ?? null)
        : null;
    return this.transactions.run(async (manager) => {
      const now = this.clock.now();
      const quote = await this.quotes.quote(
        offer,
        input,
        now,
        manager,
        numberCheck,
        calculated,
      );
      const { totals } = quote;
      // A subscription needs a card on file even when its first order is free
      // (trial, usage-based): renewals charge it. A zero amount verifies the
      // card and saves it for renewals.
      const charges =
        totals.total > 0 || quote.price.category === 'subscription';
      if (charges && !method) throw cardNumberRequired();
      const { store, product } = offer.target;
      const customer = await this.customers.findOrCreateForPurchase(manager, {
        storeId: store.id,
        testMode: offer.testMode,
        email: buyer.email,
        name: buyer.name,
        country: buyer.country,
      });
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
          status: charges ? 'pending' : 'paid',
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
          billingZip: quote.tax.evidence.billingZip,
          billingRegion: quote.tax.evidence.billingRegion,
          taxNumber: quote.tax.evidence.taxNumber,
          taxNumberCheck: quote.tax.evidence.taxNumberCheck,
          taxRateSource: quote.tax.evidence.rateSource,
          taxNote: quote.tax.note,
          checkoutId: offer.checkout?.id ?? null,
          customData: customDataOf(offer.checkout),
          paymentReference: null,
          failureReason: null,
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
      // Redeemed now, so that racing purchases cannot overrun the limit
      // while this one is being charged; a failed payment gives it back.
      if (quote.discount)
        await this.discounts.redeem(manager, quote.discount, order, now);
      if (!charges) {
        // Numbering holds the store's order-number lock until the commit, so
        // it comes as late as it can, in the statement that records
        // order_created (which goes out before the extensions' events).
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
          payment: null,
        });
        return { order, attempt: null, customer, quote };
      }
      const attempt = await this.attempts.begin(manager, {
        idempotencyKey: identifier,
        storeId: store.id,
        testMode: offer.testMode,
        kind: method === 'intent' ? 'intent' : 'charge',
        purpose: PURCHASE,
        subjectId: order.id,
        amount: totals.total,
        currency: totals.currency,
        paymentMethod: method === 'intent' ? undefined : method!.id,
        description: `${store.name}: ${product.name}`,
      });
      await this.orders.assignNumberAndCommit(manager, order);
      return { order, attempt, customer, quote };
    });
  }

  /** The intent attempt of a hosted purchase's order, if it has one. */
  intentAttemptOf(order: Pick<Order, 'id'>): Promise<PaymentAttempt | null> {
    return this.intents.intentAttemptOf(PURCHASE, order.id);
  }

  /** Whether an order buys a subscription (its card is saved for renewals). */
  async subscribes(order: OrderView): Promise<boolean> {
    const item = order.firstItem;
    if (!item || item.priceId === null) return false;
    const price = await this.catalog.findPrice(
      { storeId: order.storeId, testMode: order.testMode },
      item.priceId,
    );
    return price?.category === 'subscription';
  }
}

function customDataOf(checkout: Checkout | null) {
  const custom = checkout?.checkoutData.custom;
  return custom && Object.keys(custom).length > 0 ? custom : null;
}
