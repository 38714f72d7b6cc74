import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { Principal } from '../../common/principal';
import { nextRefund } from '../../common/refunds';
import { Transactions } from '../../database/transactions';
import { PaymentGateways } from '../payment/payment-gateways';
import { Outbox } from '../webhooks/outbox';
import { OrderItem } from './order-item.entity';
import { Order } from './order.entity';
import { OrderReceipts } from './order-receipts';
import { OrderRepository, OrderView } from './order.repository';

/** Everything an order row needs at purchase, computed by the checkout's pricing. */
export type NewOrder = Omit<
  Order,
  | 'currencyRateDate'
  | 'id'
  | 'identifier'
  | 'orderNumber'
  | 'refundedAt'
  | 'refundedAmount'
  | 'refundedAmountUsd'
  | 'createdAt'
  | 'updatedAt'
> & { currencyRateDate?: string | null };

export type NewOrderItem = Pick<
  OrderItem,
  | 'productId'
  | 'variantId'
  | 'priceId'
  | 'productName'
  | 'variantName'
  | 'price'
  | 'quantity'
>;

@Injectable()
export class OrderService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly receipts: OrderReceipts,
    private readonly outbox: Outbox,
    private readonly gateways: PaymentGateways,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes an order and its items inside the caller's (purchase)
   * transaction, not yet numbered: the caller calls `assignNumber` last,
   * just before its commit (a deferred constraint refuses a commit that
   * leaves an order without a number).
   */
  async createInTransaction(
    manager: EntityManager,
    fields: NewOrder & { identifier?: string },
    items: NewOrderItem[],
    now: Date,
  ): Promise<{ order: OrderView; items: OrderItem[] }> {
    const order = await this.orders.insertOrder(manager, {
      ...fields,
      identifier: fields.identifier ?? randomUUID(),
      refundedAt: null,
      refundedAmount: 0,
      refundedAmountUsd: 0,
      createdAt: now,
      updatedAt: now,
    });
    const saved = await this.orders.insertItems(
      manager,
      items.map((item) => ({
        ...item,
        orderId: order.id,
        storeId: order.storeId,
        testMode: order.testMode,
        createdAt: now,
        updatedAt: now,
      })),
    );
    return {
      order: Object.assign(order, { firstItem: saved[0] ?? null }),
      items: saved,
    };
  }

  /**
   * Gives an order written by `createInTransaction` the store's next
   * gap-free number. This takes the store's order-number lock, which
   * serializes the store's purchases until they commit: call it as the last
   * write before the commit, so the lock is held as briefly as possible.
   */
  async assignNumber(manager: EntityManager, order: Order): Promise<void> {
    order.orderNumber = await this.orders.assignOrderNumber(manager, order);
  }

  /**
   * `assignNumber` for a paid order, with its `order_created` event recorded
   * in the same statement: one round trip under the store's lock, not two.
   */
  async assignNumberAndRecordCreated(
    manager: EntityManager,
    order: OrderView,
  ): Promise<void> {
    const numbered = await this.outbox.recordWith<
      OrderView,
      { order_number: number }
    >(
      manager,
      {
        name: 'order_created',
        storeId: order.storeId,
        testMode: order.testMode,
        resource: 'orders',
        record: order,
        customData: order.customData,
      },
      'order_number',
      this.orders.numbering(order),
      'orders.assign-number-and-record-created',
    );
    order.orderNumber = numbered.order_number;
  }

  receiptUrl(order: Pick<Order, 'identifier'>): string {
    return this.receipts.url(order.identifier);
  }

  /**
   * Refunds `amount` cents (the whole remainder when omitted) through the
   * order's gateway, by the refund rule orders share with subscription
   * invoices (`nextRefund`), and records `order_refunded`. The order row is
   * locked, so concurrent refunds cannot together exceed what was paid.
   */
  async refund(
    principal: Principal,
    id: number,
    amount: number | undefined,
  ): Promise<OrderView> {
    return this.transactions.run(async (manager) => {
      const order = await this.orders.lockVisible(manager, principal, id);
      if (!order) throw AppError.notFound();
      const now = this.clock.now();
      const refund = nextRefund(
        order,
        'order',
        amount,
        order.currencyRate,
        now,
      );
      await this.gateways.forMode(order.testMode).refund({
        paymentId: refund.paymentId,
        amount: refund.amount,
        currency: order.currency,
        reference: `${order.identifier}:${refund.fields.refundedAmount}`,
      });
      Object.assign(order, refund.fields, { updatedAt: now });
      await this.orders.saveOrder(manager, order);
      const [item] = await this.orders.itemsOf(manager, order.id);
      const view = Object.assign(order, { firstItem: item ?? null });
      await this.outbox.record(manager, {
        name: 'order_refunded',
        storeId: order.storeId,
        testMode: order.testMode,
        resource: 'orders',
        record: view,
        customData: order.customData,
      });
      return view;
    });
  }

  /** The receipt page's order; the caller has checked the link's signature. */
  findByIdentifier(identifier: string): Promise<OrderView | null> {
    return this.orders.findByIdentifier(identifier);
  }
}
