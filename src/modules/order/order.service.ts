import { randomUUID } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { Principal } from '../../common/principal';
import { nextRefund, revertedRefund } from '../../common/refunds';
import { Transactions } from '../../database/transactions';
import {
  PaymentAttempt,
  PaymentOutcome,
} from '../payment/payment-attempt.entity';
import { PaymentAttempts } from '../payment/payment-attempts';
import {
  ProcessorRefund,
  ProcessorRefunds,
} from '../payment/processor-refunds';
import { PaymentGateways } from '../payment/payment-gateways';
import { Outbox } from '../webhooks/outbox';
import { OrderItem } from './order-item.entity';
import {
  invoiceNumberPlaceholder,
  InvoiceNumbers,
} from '../store/invoice-numbers';
import { Order } from './order.entity';
import { OrderReceipts } from './order-receipts';
import {
  OrderRepository,
  OrderSettlement,
  OrderView,
} from './order.repository';

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
  | 'dispute'
  | 'createdAt'
  | 'updatedAt'
  | 'invoiceNumber'
  | TaxEvidenceField
> & {
  currencyRateDate?: string | null;
  invoiceNumber?: string | null;
} & Partial<Pick<Order, TaxEvidenceField>>;

/** The tax engine's evidence: absent on orders written without it (imports, benches). */
type TaxEvidenceField =
  'billingRegion' | 'taxNumberCheck' | 'taxRateSource' | 'taxNote';

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

/** The payment attempts of order refunds. */
const ORDER_REFUND = 'order_refund';

@Injectable()
export class OrderService implements OnModuleInit {
  constructor(
    private readonly orders: OrderRepository,
    private readonly receipts: OrderReceipts,
    private readonly outbox: Outbox,
    private readonly gateways: PaymentGateways,
    private readonly attempts: PaymentAttempts,
    private readonly processorRefunds: ProcessorRefunds,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    private readonly invoiceNumbers: InvoiceNumbers,
  ) {}

  onModuleInit() {
    this.attempts.register(ORDER_REFUND, {
      settle: (manager, attempt, outcome) =>
        this.settleRefund(manager, attempt, outcome),
      reverse: (manager, attempt) => this.reverseRefund(manager, attempt),
    });
  }

  /**
   * Writes an order and its items inside the caller's (purchase)
   * transaction, not yet numbered: the caller numbers it last, with
   * `assignNumberAndCommit` or `assignNumberAndRecordCreated` (a deferred
   * constraint refuses a commit that leaves an order without a number).
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
      dispute: null,
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
   * gap-free number, and commits. The number takes the store's order-number
   * lock, which serializes the store's purchases until they commit, so it
   * is the transaction's last statement, sent with the COMMIT: nothing may
   * be written after it.
   */
  async assignNumberAndCommit(
    manager: EntityManager,
    order: Order,
  ): Promise<void> {
    order.orderNumber = await this.orders.assignOrderNumberAndCommit(
      manager,
      order,
    );
  }

  /**
   * The number of an order paid in the transaction that wrote it (a free
   * purchase), with its `order_created` event recorded in the same
   * statement: one round trip under the store's lock, not two. It does not
   * commit (the purchase's extensions follow). A paid order also takes the
   * store's next invoice number first.
   */
  async assignNumberAndRecordCreated(
    manager: EntityManager,
    order: OrderView,
  ): Promise<void> {
    order.invoiceNumber = await this.invoiceNumbers.assign(
      manager,
      'orders',
      order,
      order.createdAt,
    );
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
   * A pending order (its payment under way) and its items, for the
   * settlement's preparation outside any transaction.
   */
  async findPending(
    id: number,
  ): Promise<{ order: Order; items: OrderItem[] } | null> {
    const order = await this.orders.findById(id);
    if (!order || order.status !== 'pending') return null;
    return { order, items: await this.orders.itemsOf(undefined, id) };
  }

  /**
   * A pending order's payment was declined (or refused): it is `failed`,
   * and fires nothing. False when it is no longer pending. `order`: see
   * `markPaid`.
   */
  async markFailed(
    manager: EntityManager,
    order: OrderView,
    reason: string,
    now: Date,
  ): Promise<boolean> {
    return this.settle(manager, order, {
      status: 'failed',
      failureReason: reason,
      updatedAt: now,
    });
  }

  /**
   * A pending order's payment went through: it is `paid`, with
   * `order_created`. `order` is the pending order as its purchase holds it
   * (with its first item, which does not change): the statement that marks
   * it also locks it and checks that it is still pending, and `order` is
   * updated in place from the stored row, so a purchase answers with the
   * settled order without reading it again. False when it is no longer
   * pending (settled by another caller). Its invoice number is a
   * placeholder until the caller calls `assignInvoiceNumberAndCommit`, last.
   */
  async markPaid(
    manager: EntityManager,
    order: OrderView,
    paymentId: string,
    now: Date,
  ): Promise<boolean> {
    const settled = await this.settle(manager, order, {
      status: 'paid',
      paymentReference: paymentId,
      updatedAt: now,
    });
    if (!settled) return false;
    order.invoiceNumber = invoiceNumberPlaceholder();
    this.outbox.watch(manager, order.invoiceNumber);
    await this.outbox.record(manager, {
      name: 'order_created',
      storeId: order.storeId,
      testMode: order.testMode,
      resource: 'orders',
      record: order,
      customData: order.customData,
    });
    return true;
  }

  /** Settles `order` if still pending, updating it in place from the stored row. */
  private async settle(
    manager: EntityManager,
    order: OrderView,
    changes: OrderSettlement,
  ): Promise<boolean> {
    const settled = await this.orders.settlePending(manager, order.id, changes);
    if (settled) Object.assign(order, settled);
    return settled !== null;
  }

  /**
   * Gives an order `markPaid` settled the store's next invoice number, in
   * place of its placeholder everywhere the transaction wrote it (the
   * order, its subscription's initial invoice, the events), and commits.
   * The store's counter row stays locked until the commit, serialising the
   * store's sales, so this is the transaction's last statement, sent with
   * the COMMIT: nothing may be written after it.
   */
  async assignInvoiceNumberAndCommit(
    manager: EntityManager,
    order: OrderView,
    now: Date,
  ): Promise<void> {
    const placeholder = order.invoiceNumber!;
    order.invoiceNumber = await this.invoiceNumbers.assignAndCommit(
      manager,
      'orders',
      order,
      now,
      { placeholder, events: this.outbox.carrying(manager, placeholder) },
    );
  }

  /**
   * Refunds `amount` cents (the whole remainder when omitted) through the
   * order's gateway, by the refund rule orders share with subscription
   * invoices (`nextRefund`), and records `order_refunded`. The refund is
   * stored as a pending payment attempt under the order's row lock, counting
   * against what is left, so concurrent refunds cannot together exceed what
   * was paid; the processor is called after that commit, and the order
   * changes when it has answered (see PaymentAttempts).
   */
  async refund(
    principal: Principal,
    id: number,
    amount: number | undefined,
  ): Promise<OrderView> {
    const attempt = await this.transactions.run(async (manager) => {
      const order = await this.orders.lockVisible(manager, principal, id);
      if (!order) throw AppError.notFound();
      return this.attempts.beginRefund(manager, ORDER_REFUND, order, {
        noun: 'order',
        amount,
        currencyRate: order.currencyRate,
        description: `Refund of order ${order.identifier}`,
      });
    });
    await this.attempts.complete(attempt);
    const [view] = await this.orders.findVisible(principal, [id]);
    return view;
  }

  /** The store's order (in the mode) paid by the processor's payment `paymentId`. */
  findByPaymentReference(
    storeId: number,
    testMode: boolean,
    paymentId: string,
  ): Promise<Order | null> {
    return this.orders.findByPaymentReference({ storeId, testMode }, paymentId);
  }

  /**
   * Records refunds the processor reports on the order's payment that Zest
   * did not make (its dashboard), as `refund` would have: the order's
   * refund fields and `order_refunded`, once per processor refund.
   */
  recordProcessorRefunds(
    id: number,
    refunds: ProcessorRefund[],
  ): Promise<number> {
    return this.transactions.run(async (manager) => {
      const order = await this.orders.lock(manager, id);
      if (!order) return 0;
      return this.processorRefunds.record(
        manager,
        ORDER_REFUND,
        order,
        refunds,
        `Refund of order ${order.identifier} at the payment processor`,
      );
    });
  }

  private async settleRefund(
    manager: EntityManager,
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
  ): Promise<void> {
    if (outcome.status !== 'succeeded') return;
    const order = await this.orders.lock(manager, attempt.subjectId);
    if (!order) return;
    const now = this.clock.now();
    const refund = nextRefund(
      order,
      'order',
      attempt.amount,
      order.currencyRate,
      now,
    );
    Object.assign(order, refund.fields, { updatedAt: now });
    await this.orders.saveOrder(manager, order);
    const [item] = await this.orders.itemsOf(manager, order.id);
    await this.outbox.record(manager, {
      name: 'order_refunded',
      storeId: order.storeId,
      testMode: order.testMode,
      resource: 'orders',
      record: Object.assign(order, { firstItem: item ?? null }),
      customData: order.customData,
      detail: { refund_amount: refund.amount },
    });
  }

  /** A refund that failed at the processor after it was recorded: the amount is the order's again. */
  private async reverseRefund(
    manager: EntityManager,
    attempt: PaymentAttempt,
  ): Promise<void> {
    const order = await this.orders.lock(manager, attempt.subjectId);
    if (!order) return;
    const now = this.clock.now();
    Object.assign(
      order,
      revertedRefund(order, attempt.amount, order.currencyRate),
      { updatedAt: now },
    );
    await this.orders.saveOrder(manager, order);
    const [item] = await this.orders.itemsOf(manager, order.id);
    await this.outbox.record(manager, {
      name: 'order_refund_failed',
      storeId: order.storeId,
      testMode: order.testMode,
      resource: 'orders',
      record: Object.assign(order, { firstItem: item ?? null }),
      customData: order.customData,
      detail: { refund_amount: attempt.amount },
    });
  }

  /** The receipt page's order; the caller has checked the link's signature. */
  findByIdentifier(identifier: string): Promise<OrderView | null> {
    return this.orders.findByIdentifier(identifier);
  }
}
