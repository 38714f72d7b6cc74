import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/transactions';
import { Outbox } from '../webhooks/outbox';
import { OrderDispute } from './order.entity';
import { OrderRepository } from './order.repository';

/** A dispute as the processor reports it, its amount in the order's minor units. */
export type DisputeReport = OrderDispute;

/**
 * Chargebacks on orders' payments, as the payment processor reports them:
 * an opened dispute marks the order (`dispute`) and fires `order_disputed`,
 * its decision fires `order_dispute_closed`. Each report is applied under
 * the order's row lock and only when it changes the order, so a repeated
 * or late report (an opening after the decision) changes nothing and fires
 * nothing.
 */
@Injectable()
export class OrderDisputes {
  constructor(
    private readonly orders: OrderRepository,
    private readonly outbox: Outbox,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /** A dispute was opened on order `id`'s payment. Returns whether the order changed. */
  opened(id: number, dispute: DisputeReport): Promise<boolean> {
    return this.apply(id, dispute, 'order_disputed', (current) =>
      // The same dispute is already there (this report, or its decision).
      current?.id === dispute.id ? null : dispute,
    );
  }

  /** The dispute on order `id`'s payment was decided. Returns whether the order changed. */
  closed(id: number, dispute: DisputeReport): Promise<boolean> {
    return this.apply(id, dispute, 'order_dispute_closed', (current) =>
      current?.id === dispute.id && current.status === dispute.status
        ? null
        : {
            ...dispute,
            createdAt:
              current?.id === dispute.id
                ? current.createdAt
                : dispute.createdAt,
          },
    );
  }

  private apply(
    id: number,
    report: DisputeReport,
    event: 'order_disputed' | 'order_dispute_closed',
    next: (current: OrderDispute | null) => OrderDispute | null,
  ): Promise<boolean> {
    return this.transactions.run(async (manager) => {
      const order = await this.orders.lock(manager, id);
      if (!order) return false;
      const dispute = next(order.dispute);
      if (!dispute) return false;
      order.dispute = {
        id: dispute.id,
        status: dispute.status,
        reason: dispute.reason,
        amount: dispute.amount,
        createdAt: dispute.createdAt,
      };
      order.updatedAt = this.clock.now();
      await this.orders.saveOrder(manager, order);
      const [item] = await this.orders.itemsOf(manager, order.id);
      await this.outbox.record(manager, {
        name: event,
        storeId: order.storeId,
        testMode: order.testMode,
        resource: 'orders',
        record: Object.assign(order, { firstItem: item ?? null }),
        customData: order.customData,
      });
      return true;
    });
  }
}
