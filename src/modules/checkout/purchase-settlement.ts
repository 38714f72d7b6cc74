import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { CatalogService } from '../catalog/catalog.service';
import { Price } from '../catalog/price.entity';
import { Product } from '../catalog/product.entity';
import { Variant } from '../catalog/variant.entity';
import { Customer } from '../customer/customer.entity';
import { CustomerService } from '../customer/customer.service';
import { AppliedDiscount, DiscountService } from '../discount/discount.service';
import { OrderView } from '../order/order.repository';
import { OrderService } from '../order/order.service';
import {
  PaymentAttempt,
  PaymentOutcome,
} from '../payment/payment-attempt.entity';
import { PaymentAttempts } from '../payment/payment-attempts';
import { Store } from '../store/store.entity';
import { Checkout } from './checkout.entity';
import { CheckoutRepository } from './checkout.repository';
import { PurchaseExtensions } from './purchase-extension';

/** The payment attempts of purchases: a charge (or intent) settles a pending order. */
export const PURCHASE = 'purchase';

/** What a purchase's settlement needs: the pending order and its records. */
export interface PurchaseRecords {
  /**
   * The pending order with its first item, as written: the settlement
   * updates it in place (a purchase answers with it, settled, without
   * reading it again).
   */
  order: OrderView;
  /**
   * The discount it redeemed, as applied (null: none); read in the
   * settlement when not given.
   */
  discount?: AppliedDiscount | null;
  store: Store;
  customer: Customer;
  product: Product;
  variant: Variant;
  price: Price;
  checkout: Checkout | null;
}

/**
 * The second step of a purchase: how its payment attempt's outcome settles
 * the pending order (registered with PaymentAttempts for `purchase`).
 */
@Injectable()
export class PurchaseSettlement implements OnModuleInit {
  constructor(
    private readonly orders: OrderService,
    private readonly customers: CustomerService,
    private readonly discounts: DiscountService,
    private readonly attempts: PaymentAttempts,
    private readonly catalog: CatalogService,
    private readonly checkouts: CheckoutRepository,
    private readonly extensions: PurchaseExtensions,
    private readonly clock: Clock,
  ) {}

  onModuleInit() {
    this.attempts.register<PurchaseRecords | null>(PURCHASE, {
      prepare: (attempt) => this.purchaseRecords(attempt),
      settle: (manager, attempt, outcome, records) =>
        this.settlePurchase(manager, attempt, outcome, records),
    });
  }

  /** What a pending order's settlement reads before its transaction. */
  private async purchaseRecords(
    attempt: PaymentAttempt,
  ): Promise<PurchaseRecords | null> {
    const pending = await this.orders.findPending(attempt.subjectId);
    if (!pending) return null;
    const { order, items } = pending;
    const [item] = items;
    const scope = { storeId: order.storeId, testMode: order.testMode };
    const [store, customer, product, variant, price, checkout] =
      await Promise.all([
        this.checkouts.store(order.storeId),
        this.customers.findById(order.customerId),
        this.catalog.findProduct(scope, item.productId),
        this.catalog.findVariant(scope, item.variantId),
        item.priceId === null
          ? null
          : this.catalog.findPrice(scope, item.priceId),
        order.checkoutId ? this.checkouts.findById(order.checkoutId) : null,
      ]);
    if (!store || !customer || !product || !variant || !price)
      throw new Error(
        `Order ${order.id}: its store, customer or catalog records are gone`,
      );
    return {
      order: Object.assign(order, { firstItem: item }),
      store,
      customer,
      product,
      variant,
      price,
      checkout,
    };
  }

  /**
   * The second step of a purchase, in the settling transaction: the pending
   * order becomes `paid` (with `order_created`, then the extensions:
   * subscription, license keys …, then its invoice number) or `failed`.
   */
  private async settlePurchase(
    manager: EntityManager,
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
    records: PurchaseRecords | null,
  ): Promise<void> {
    // No records: the order was no longer pending when they were read.
    if (!records) return;
    const { order } = records;
    if (order.id !== attempt.subjectId)
      throw new Error(
        `Order ${order.id} settled as order ${attempt.subjectId}`,
      );
    const now = this.clock.now();
    if (outcome.status !== 'succeeded') {
      const failed = await this.orders.markFailed(
        manager,
        order,
        outcome.reason,
        now,
      );
      // A purchase known to have redeemed no discount has none to give back.
      if (failed && records.discount !== null)
        await this.discounts.release(manager, order.id);
      return;
    }
    if (!(await this.orders.markPaid(manager, order, outcome.paymentId, now)))
      return;
    if (!order.firstItem)
      throw new Error(`Order ${order.id} changed while it was settled`);
    const method = outcome.method ?? {
      id: attempt.paymentMethod!,
      cardBrand: null,
      cardLastFour: null,
    };
    await this.extensions.run({
      manager,
      // The purchase's instant: periods and expiries count from the order.
      now: order.createdAt,
      testMode: order.testMode,
      store: records.store,
      customer: records.customer,
      order,
      items: [
        {
          orderItem: order.firstItem,
          product: records.product,
          variant: records.variant,
          price: records.price,
          quantity: order.firstItem.quantity,
        },
      ],
      discount:
        records.discount !== undefined
          ? records.discount
          : await this.discounts.redeemedBy(manager, order.id),
      checkout: records.checkout,
      customData: order.customData,
      payment: { paymentId: outcome.paymentId, method },
    });
    // Last, with the commit: the number's counter row is locked until then.
    await this.orders.assignInvoiceNumberAndCommit(manager, order, now);
  }
}
