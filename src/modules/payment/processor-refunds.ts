import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { Refundable } from '../../common/refunds';
import { PaymentOutcome } from './payment-attempt.entity';
import { PaymentAttemptRepository } from './payment-attempt.repository';
import { PaymentAttempts } from './payment-attempts';

/** A refund the processor reports on a payment (made in its dashboard, or Zest's own echoed back). */
export interface ProcessorRefund {
  /** The processor's id of the refund (`re_…`). */
  id: string;
  /** Minor units of the record's currency. */
  amount: number;
  /** The payment attempt's key Zest sent with it, when Zest made it. */
  reference: string | null;
}

/** The key of the attempt that records a refund made at the processor. */
const processorRefundKey = (refundId: string) => `processor-refund-${refundId}`;

/**
 * Refunds made at the payment processor itself (Stripe's dashboard),
 * recorded on the order or invoice the payment paid as if made through
 * Zest's API (see `record`).
 */
@Injectable()
export class ProcessorRefunds {
  private readonly logger = new Logger(ProcessorRefunds.name);

  constructor(
    private readonly attempts: PaymentAttemptRepository,
    private readonly payments: PaymentAttempts,
    private readonly clock: Clock,
  ) {}

  /**
   * Records the processor's refunds of a record (locked in `manager`) that
   * Zest does not know yet: refunds made in the processor's dashboard. A
   * refund Zest made itself is known by its id (settled attempts) or by the
   * attempt key it carries (`reference`: attempts still pending), so an
   * echo is never counted twice. Each new one is stored as a settled refund
   * attempt keyed by the processor's refund id (recording it again is a
   * no-op) and settled by the purpose's settler, exactly as a refund made
   * through the API: the same fields, the same webhook event. Zest's
   * refunds are matched over every record the payment paid (an order and
   * its subscription's first invoice share one). Returns how many were
   * recorded.
   */
  async record(
    manager: EntityManager,
    purpose: string,
    record: Refundable & {
      id: number;
      storeId: number;
      testMode: boolean;
    },
    refunds: ProcessorRefund[],
    description: string,
  ): Promise<number> {
    const settler = this.payments.settlerOf(purpose);
    if (!record.paymentReference) return 0;
    const known = await this.attempts.refundsOfPayment(
      manager,
      record,
      record.paymentReference,
    );
    const keys = new Set(known.map((attempt) => attempt.idempotencyKey));
    const ids = new Set(
      known.flatMap((attempt) =>
        attempt.outcome?.status === 'succeeded'
          ? [attempt.outcome.paymentId]
          : [],
      ),
    );
    let refunded = record.refundedAmount;
    let recorded = 0;
    for (const refund of refunds) {
      if (
        ids.has(refund.id) ||
        keys.has(processorRefundKey(refund.id)) ||
        (refund.reference !== null && keys.has(refund.reference))
      )
        continue;
      const left = record.status === 'paid' ? record.total - refunded : 0;
      const amount = Math.min(refund.amount, left);
      if (amount < 1) {
        this.logger.warn(
          `Refund ${refund.id} of ${purpose} ${record.id} exceeds what Zest has left to refund; not recorded`,
        );
        continue;
      }
      const now = this.clock.now();
      const outcome: PaymentOutcome = {
        status: 'succeeded',
        paymentId: refund.id,
        method: null,
      };
      const attempt = await this.attempts.insertOrFind(manager, {
        idempotencyKey: processorRefundKey(refund.id),
        storeId: record.storeId,
        testMode: record.testMode,
        kind: 'refund',
        purpose,
        subjectId: record.id,
        amount,
        currency: record.currency,
        paymentMethod: null,
        paymentId: record.paymentReference,
        description,
        status: 'succeeded',
        outcome,
        createdAt: now,
        updatedAt: now,
      });
      await settler.settle(manager, attempt, outcome, undefined);
      refunded += amount;
      recorded++;
    }
    return recorded;
  }
}
