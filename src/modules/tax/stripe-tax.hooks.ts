import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Queue } from 'bullmq';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import {
  PurchaseContext,
  PurchaseExtension,
  PurchaseExtensions,
} from '../checkout/purchase-extension';
import { Outbox, OutboxEvent, OutboxListener } from '../webhooks/outbox';
import { StripeTaxRecords, TaxedOrder } from './stripe-tax-records';
import { STRIPE_TAX_QUEUE } from './stripe-tax.queue';

/**
 * Where sales and refunds of Stripe Tax stores become owed tax
 * transactions: the purchase's `tax` extension, `order_refunded`, and a
 * renewal invoice's `subscription_payment_success` and
 * `subscription_payment_refunded`, each in the transaction that makes the
 * change. After that transaction
 * commits, a `record` job is queued for the worker; the job scheduler
 * retries whatever a lost job or an unreachable Stripe left open.
 */
@Injectable()
export class StripeTaxHooks
  implements
    PurchaseExtension,
    OutboxListener,
    OnModuleInit,
    EntitySubscriberInterface
{
  readonly name = 'tax';
  private readonly logger = new Logger(StripeTaxHooks.name);
  /** Transactions that wrote a record and have not committed yet. */
  private readonly pending = new WeakSet<QueryRunner>();

  constructor(
    private readonly extensions: PurchaseExtensions,
    private readonly outbox: Outbox,
    private readonly records: StripeTaxRecords,
    private readonly dataSource: DataSource,
    @InjectQueue(STRIPE_TAX_QUEUE) private readonly queue: Queue,
  ) {}

  onModuleInit() {
    this.extensions.register(this);
    this.outbox.listen(this);
    this.dataSource.subscribers.push(this);
  }

  async onPurchase(context: PurchaseContext): Promise<void> {
    if (context.store.taxProvider !== 'stripe') return;
    await this.records.owedForSale(context.manager, context.order);
    this.written(context.manager);
  }

  async onOutboxEvent(
    manager: EntityManager,
    event: OutboxEvent<unknown>,
  ): Promise<void> {
    const amount = event.detail?.refund_amount ?? 0;
    if (event.name === 'order_refunded') {
      const order = event.record as TaxedOrder;
      await this.records.owedForRefund(manager, order, amount);
      this.written(manager);
      return;
    }
    if (
      event.name !== 'subscription_payment_success' &&
      event.name !== 'subscription_payment_refunded'
    )
      return;
    const invoice = event.record as {
      id: number;
      subscriptionId: number;
      billingReason: string;
      taxRateSource: string | null;
    };
    // A renewal priced by a calculation of its own is a sale of its own:
    // its transaction once paid, its reversals under the invoice.
    if (invoice.billingReason !== 'initial') {
      if (!invoice.taxRateSource) return;
      const owed =
        event.name === 'subscription_payment_success'
          ? await this.records.owedForInvoice(manager, invoice.id)
          : await this.records.owedForInvoiceRefund(
              manager,
              invoice.id,
              amount,
            );
      if (owed) this.written(manager);
      return;
    }
    // A subscription's initial invoice is its order's sale (one payment, one
    // Stripe Tax transaction under the order): its refund reverses that.
    if (event.name !== 'subscription_payment_refunded') return;
    const order = await this.records.lockOrderOf(
      manager,
      invoice.subscriptionId,
    );
    if (!order) return;
    await this.records.owedForRefund(manager, order, amount);
    this.written(manager);
  }

  afterTransactionCommit(event: TransactionCommitEvent) {
    const runner = event.queryRunner;
    if (runner.isTransactionActive || !this.pending.has(runner)) return;
    this.pending.delete(runner);
    this.nudge();
  }

  afterTransactionRollback(event: TransactionRollbackEvent) {
    if (!event.queryRunner.isTransactionActive)
      this.pending.delete(event.queryRunner);
  }

  private written(manager: EntityManager) {
    const runner = manager.queryRunner;
    if (runner?.isTransactionActive) this.pending.add(runner);
    else this.nudge();
  }

  /** A lost nudge only delays the record until the scheduled run. */
  private nudge() {
    this.queue
      .add('record', null, {
        attempts: 5,
        backoff: { type: 'exponential', delay: 5_000 },
        removeOnComplete: true,
        removeOnFail: 100,
      })
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'Stripe Tax queue unavailable'),
      );
  }
}
