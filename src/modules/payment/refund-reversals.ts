import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/transactions';
import { PaymentAttemptRepository } from './payment-attempt.repository';
import { PaymentAttempts } from './payment-attempts';

/**
 * Refunds that fail after they were recorded: a refund the processor first
 * accepted (Stripe answers `pending` or `succeeded`) can still fail (the
 * card was closed) or be canceled; Stripe then reports it with
 * `charge.refund.updated`. The refund's attempt (Zest's own, or one
 * recorded from the processor's report) is marked `failed` and its
 * purpose's settler gives the amount back to the order or invoice, in one
 * transaction under the attempt's row lock: a repeated report changes
 * nothing.
 */
@Injectable()
export class RefundReversals {
  constructor(
    private readonly attempts: PaymentAttemptRepository,
    private readonly payments: PaymentAttempts,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /** Returns whether a recorded refund was reversed. */
  failed(
    tenancy: { storeId: number; testMode: boolean },
    refundId: string,
    reason: string,
  ): Promise<boolean> {
    return this.transactions.run(async (manager) => {
      const attempt = await this.attempts.lockRefund(
        manager,
        tenancy,
        refundId,
      );
      if (!attempt || attempt.status !== 'succeeded') return false;
      const settler = this.payments.settlerOf(attempt.purpose);
      await this.attempts.settle(manager, attempt, {
        status: 'failed',
        outcome: { status: 'failed', reason, code: 'refund_failed', http: 402 },
        updatedAt: this.clock.now(),
      });
      await settler.reverse?.(manager, attempt);
      return true;
    });
  }
}
