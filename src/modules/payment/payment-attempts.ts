import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { nextRefund, Refundable } from '../../common/refunds';
import { Transactions } from '../../database/transactions';
import {
  PaymentAttempt,
  PaymentAttemptKind,
  PaymentOutcome,
} from './payment-attempt.entity';
import { PaymentAttemptRepository } from './payment-attempt.repository';
import { PaymentGateways } from './payment-gateways';
import { paymentFailed, processorUnavailable } from './payment.errors';

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
}

/** How long an attempt may stay pending before the sweeper replays it. */
export const STALE_ATTEMPT_MS = 60_000;
const SWEEP_BATCH = 100;

/**
 * Processor calls outside database transactions. A use case stores its
 * intent with `begin` inside its own transaction and commits; `complete`
 * then calls the processor with no transaction open, under the attempt's
 * idempotency key, and records the outcome in a new transaction through
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
    private readonly transactions: Transactions,
    private readonly clock: Clock,
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
   * `failed` and throws its error.
   */
  async complete(attempt: PaymentAttempt): Promise<PaymentOutcome> {
    const outcome = attempt.outcome ?? (await this.call(attempt));
    const settler = this.settlerOf(attempt.purpose);
    const prepared = await settler.prepare?.(attempt);
    await this.transactions.run(async (manager) => {
      const locked = await this.attempts.lock(manager, attempt.id);
      if (!locked || locked.status !== 'pending') return;
      locked.status = outcome.status;
      locked.outcome = outcome;
      locked.updatedAt = this.clock.now();
      await this.attempts.save(manager, locked);
      await settler.settle(manager, locked, outcome, prepared);
    });
    if (outcome.status === 'failed') throw paymentFailed(outcome);
    return outcome;
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

  private settlerOf(purpose: string): PaymentSettler {
    const settler = this.settlers.get(purpose);
    if (!settler)
      throw new Error(`Payment purpose "${purpose}" has no settler`);
    return settler;
  }

  private async call(attempt: PaymentAttempt): Promise<PaymentOutcome> {
    try {
      if (attempt.kind === 'refund') {
        const gateway = await this.gateways.forPayment(
          attempt.storeId,
          attempt.testMode,
          attempt.paymentId!,
        );
        const { refundId } = await gateway.refund({
          paymentId: attempt.paymentId!,
          amount: attempt.amount,
          currency: attempt.currency,
          reference: attempt.idempotencyKey,
        });
        return { status: 'succeeded', paymentId: refundId, method: null };
      }
      const gateway = await this.gateways.forStore(
        attempt.storeId,
        attempt.testMode,
      );
      const result = await gateway.charge({
        reference: attempt.idempotencyKey,
        amount: attempt.amount,
        currency: attempt.currency,
        source: { paymentMethodId: attempt.paymentMethod! },
        description: attempt.description,
      });
      return result.status === 'succeeded'
        ? {
            status: 'succeeded',
            paymentId: result.paymentId,
            method: result.method,
          }
        : { status: 'declined', reason: result.reason, method: result.method };
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        const [first] = error.errors;
        return {
          status: 'failed',
          reason: first?.detail ?? error.message,
          code: first?.code ?? null,
          http: error.status,
        };
      }
      this.logger.error(
        `Payment attempt ${attempt.id} (${attempt.kind}): the processor did not answer: ${(error as Error).message}`,
      );
      throw processorUnavailable();
    }
  }
}
