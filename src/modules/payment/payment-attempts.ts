import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { RefundErrors } from '../../common/common.errors';
import { nextRefund, Refundable } from '../../common/refunds';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/transactions';
import {
  PaymentAttempt,
  PaymentAttemptKind,
  PaymentOutcome,
} from './payment-attempt.entity';
import type { PaymentGateway } from './payment-gateway';
import { PaymentAttemptRepository } from './payment-attempt.repository';
import { PaymentGateways } from './payment-gateways';
import { PaymentCalls } from './payment-calls';
import { paymentFailed } from './payment.errors';

export interface NewPaymentAttempt {
  idempotencyKey: string;
  storeId: number;
  testMode: boolean;
  kind: PaymentAttemptKind;
  purpose: string;
  subjectId: number;
  amount: number;
  currency: string;
  paymentMethod?: string;
  paymentId?: string;
  description: string;
}

/** How a purpose's records (orders, invoices) take the processor's answer. */
export interface PaymentSettler<T = unknown> {
  /**
   * Reads what the settlement needs before its transaction opens (reads
   * outside an open transaction would wait on it in embedded mode, where
   * PGlite is one session).
   */
  prepare?(attempt: PaymentAttempt): Promise<T>;
  /** Inside the settling transaction; runs once per attempt. */
  settle(
    manager: EntityManager,
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
    prepared: T,
  ): Promise<void>;
  /**
   * After the settling transaction committed, in the caller that settled
   * the attempt (never in the one that found it settled): follow-up
   * processor calls, made with no transaction open.
   */
  after?(attempt: PaymentAttempt, outcome: PaymentOutcome): Promise<void>;
  /**
   * A refund recorded as succeeded that the processor reports failed or
   * canceled later: gives the amount back to the record, inside the
   * transaction that marks the attempt failed (once).
   */
  reverse?(manager: EntityManager, attempt: PaymentAttempt): Promise<void>;
}

/** How long an attempt may stay pending before the sweeper replays it. */
export const STALE_ATTEMPT_MS = 60_000;
const SWEEP_BATCH = 100;

/**
 * Processor calls outside database transactions. A use case stores its
 * intent with `begin` inside its own transaction and commits; `complete`
 * then calls the processor (PaymentCalls) with no transaction open, under
 * the attempt's idempotency key, and records the outcome in a new transaction through
 * the purpose's settler. When the process dies (or the processor cannot be
 * reached) in between, the attempt stays pending and `sweep` replays it:
 * the processor answers a repeated key with the first call's result, and
 * the attempt's row lock lets only one settlement through.
 */
@Injectable()
export class PaymentAttempts {
  private readonly logger = new Logger(PaymentAttempts.name);
  private readonly settlers = new Map<string, PaymentSettler>();

  constructor(
    private readonly attempts: PaymentAttemptRepository,
    private readonly gateways: PaymentGateways,
    private readonly calls: PaymentCalls,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Modules register their purposes from `onModuleInit`. */
  register<T>(purpose: string, settler: PaymentSettler<T>) {
    if (this.settlers.has(purpose))
      throw new Error(`Payment purpose "${purpose}" is registered twice`);
    this.settlers.set(purpose, settler as PaymentSettler);
  }

  /** Stores the intent in the caller's transaction (a repeated key finds the first). */
  begin(
    manager: EntityManager,
    attempt: NewPaymentAttempt,
  ): Promise<PaymentAttempt> {
    if (!this.settlers.has(attempt.purpose))
      throw new Error(`Payment purpose "${attempt.purpose}" has no settler`);
    const now = this.clock.now();
    return this.attempts.insertOrFind(manager, {
      ...attempt,
      paymentMethod: attempt.paymentMethod ?? null,
      paymentId: attempt.paymentId ?? null,
      status: 'pending',
      outcome: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Minor units still pending in refunds of a record: not yet given back, no longer refundable. */
  pendingRefunds(
    manager: EntityManager,
    purpose: string,
    subjectId: number,
  ): Promise<number> {
    return this.attempts.pendingRefunds(manager, purpose, subjectId);
  }

  /** A record's attempt (of any of `purposes`) still waiting for its outcome. */
  pendingFor(
    manager: EntityManager,
    purposes: string[],
    subjectId: number,
  ): Promise<PaymentAttempt | null> {
    return this.attempts.findPending(manager, purposes, subjectId);
  }

  /**
   * Starts refunding `amount` (the rest when omitted) of a record locked in
   * `manager`, by the refund rule orders and invoices share, counting the
   * refunds still pending. Refused before anything is written when the rule
   * or the processor that took the payment refuses it.
   */
  async beginRefund(
    manager: EntityManager,
    purpose: string,
    record: Refundable & { id: number; storeId: number; testMode: boolean },
    refund: {
      noun: 'order' | 'invoice';
      amount: number | undefined;
      currencyRate: number;
      description: string;
    },
  ): Promise<PaymentAttempt> {
    const pending = await this.pendingRefunds(manager, purpose, record.id);
    const next = nextRefund(
      record,
      refund.noun,
      refund.amount,
      refund.currencyRate,
      this.clock.now(),
      pending,
    );
    // One payment can be two refundable records: a subscription's first
    // order and its initial invoice describe the same charge. Refunding
    // through both would give the money back twice at the processor, and
    // sharing one balance between them would leave each record's refunded
    // amount wrong. So a payment is refunded through the record its first
    // refund went through, and the other refuses (422).
    await this.attempts.lockPayment(manager, next.paymentId);
    const elsewhere = (
      await this.attempts.refundsOfPayment(manager, record, next.paymentId)
    ).some(
      (attempt) =>
        (attempt.status === 'pending' || attempt.status === 'succeeded') &&
        (attempt.purpose !== purpose || attempt.subjectId !== record.id),
    );
    if (elsewhere) throw RefundErrors.refundedElsewhere(refund.noun);
    await this.gateways.forPayment(
      record.storeId,
      record.testMode,
      next.paymentId,
      manager,
    );
    return this.begin(manager, {
      idempotencyKey: `refund-${randomUUID()}`,
      storeId: record.storeId,
      testMode: record.testMode,
      kind: 'refund',
      purpose,
      subjectId: record.id,
      amount: next.amount,
      currency: record.currency,
      paymentId: next.paymentId,
      description: refund.description,
    });
  }

  /**
   * Calls the processor (no transaction open) and settles the attempt.
   * Throws 503 when the processor cannot be reached: the attempt stays
   * pending for the sweeper. A request the processor refused settles as
   * `failed` and throws its error. `given` is what the caller already holds,
   * so that it is not read again: the gateway it chose for the attempt's
   * store and the settler's `prepare` result (a purchase's offer and
   * customer); the sweeper's replays read both.
   */
  async complete(
    attempt: PaymentAttempt,
    given: { gateway?: PaymentGateway; prepared?: unknown } = {},
  ): Promise<PaymentOutcome> {
    if (attempt.kind === 'intent')
      throw new Error(
        `Payment attempt ${attempt.id} is confirmed in the browser: settle it with settleIntent`,
      );
    const outcome =
      attempt.outcome ?? (await this.calls.charge(attempt, given.gateway));
    await this.record(attempt, outcome, given.prepared);
    if (outcome.status === 'failed') throw paymentFailed(outcome);
    return outcome;
  }

  /**
   * Settles the attempt of a PaymentIntent or SetupIntent the buyer
   * confirmed in the browser, once it is final, whoever learns of it first
   * (the browser's return, Stripe's webhook, the sweeper): reads the intent
   * from the store's Stripe account (no transaction open) and records it
   * through the purpose's settler in its own transaction, under the
   * attempt's row lock, so racing callers settle it once. Succeeded: paid,
   * with the real payment method. Refused (a decline, a failed 3-D Secure)
   * or canceled: the intent is canceled, so no later confirmation can take
   * money, and the attempt settles as declined. Still open (awaiting the
   * buyer, 3-D Secure, processing): nothing happens. An attempt already
   * settled is a no-op. An intent Zest did not open for a purchase settles
   * the store's pending charge attempt on it, if any (a renewal's
   * off-session charge, replayed), and is otherwise ignored (not Zest's).
   * One whose amount, currency or order is not the attempt's is a 422
   * (`payment_intent_mismatch`) and writes nothing. Throws 503 when Stripe
   * cannot be reached.
   */
  async settleIntent(
    storeId: number,
    testMode: boolean,
    intentId: string,
  ): Promise<void> {
    const attempt = await this.attempts.findIntent(storeId, testMode, intentId);
    if (!attempt) return this.settleCharge(storeId, testMode, intentId);
    if (attempt.status !== 'pending') return;
    const outcome = await this.calls.checkIntent(attempt, intentId, null);
    if (outcome) await this.record(attempt, outcome);
  }

  /** A pending charge attempt on a PaymentIntent Zest created itself (off session). */
  private async settleCharge(
    storeId: number,
    testMode: boolean,
    intentId: string,
  ): Promise<void> {
    const attempt = await this.attempts.findPendingCharge(
      { storeId, testMode },
      intentId,
    );
    if (!attempt) return;
    try {
      await this.complete(attempt);
    } catch (error) {
      // A refusal is settled (as `failed`); only an outage stays pending.
      if (!(error instanceof AppError && error.status < 500)) throw error;
    }
  }

  /** Records the outcome and settles the attempt's record, once (row lock). */
  private async record(
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
    given?: unknown,
  ): Promise<void> {
    const settler = this.settlerOf(attempt.purpose);
    const prepared =
      given !== undefined ? given : await settler.prepare?.(attempt);
    const settled = await this.transactions.run(async (manager) => {
      // Locks and settles the attempt in one statement, if still pending.
      const locked = await this.attempts.settlePending(manager, attempt.id, {
        status: outcome.status,
        outcome,
        updatedAt: this.clock.now(),
      });
      if (!locked) return null;
      await settler.settle(manager, locked, outcome, prepared);
      return locked;
    });
    if (settled) await settler.after?.(settled, outcome);
  }

  /**
   * An intent attempt the sweeper finds pending: settled when its intent is
   * final; past STRIPE_INTENT_TIMEOUT_MS its intent is canceled and the
   * attempt declined (the buyer left). Returns whether it settled.
   */
  private async sweepIntent(attempt: PaymentAttempt): Promise<boolean> {
    const now = this.clock.now();
    const expired =
      now.getTime() - attempt.createdAt.getTime() >=
      this.config.money.stripeIntentTimeoutMs
        ? 'The payment was not completed in time.'
        : null;
    // No intent recorded: the buyer never received one to confirm.
    const outcome: PaymentOutcome | null = attempt.paymentId
      ? await this.calls.checkIntent(attempt, attempt.paymentId, expired)
      : expired
        ? { status: 'declined', reason: expired, method: null }
        : null;
    if (!outcome) {
      await this.attempts.touch(attempt.id, now);
      return false;
    }
    await this.record(attempt, outcome);
    return true;
  }

  /**
   * Replays the attempts pending for longer than `minAgeMs` (a crash or an
   * unreachable processor between intent and outcome). Returns how many
   * were settled. Younger ones may still be settling in their request.
   */
  async sweep(minAgeMs = STALE_ATTEMPT_MS): Promise<number> {
    const before = new Date(this.clock.now().getTime() - minAgeMs);
    const stale = await this.attempts.findStale(before, SWEEP_BATCH);
    let settled = 0;
    for (const attempt of stale) {
      try {
        if (attempt.kind === 'intent') {
          if (await this.sweepIntent(attempt)) settled++;
          continue;
        }
        await this.complete(attempt);
        settled++;
      } catch (error) {
        if (error instanceof AppError && error.status < 500) {
          settled++;
          continue;
        }
        this.logger.warn(
          `Payment attempt ${attempt.id} is still pending: ${(error as Error).message}`,
        );
      }
    }
    return settled;
  }

  /** The settler of a purpose (registered from `onModuleInit`). */
  settlerOf(purpose: string): PaymentSettler {
    const settler = this.settlers.get(purpose);
    if (!settler)
      throw new Error(`Payment purpose "${purpose}" has no settler`);
    return settler;
  }
}
