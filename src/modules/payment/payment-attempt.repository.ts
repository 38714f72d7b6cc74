import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { EntityRows } from '../../database/entity-rows';
import { scoped } from '../../database/tenancy';
import { PaymentAttempt } from './payment-attempt.entity';

/** Every query for payment attempts. */
@Injectable()
export class PaymentAttemptRepository {
  private readonly rows: EntityRows<PaymentAttempt>;

  constructor(
    @InjectRepository(PaymentAttempt)
    private readonly attempts: Repository<PaymentAttempt>,
  ) {
    this.rows = new EntityRows(attempts, 'attempt');
  }

  /**
   * Stores an attempt; an attempt with the same key already stored is
   * returned instead (a retried request replays the same processor call).
   */
  async insertOrFind(
    manager: EntityManager,
    fields: Omit<PaymentAttempt, 'id'>,
  ): Promise<PaymentAttempt> {
    const [inserted] = await this.rows.insert(manager, [fields], true);
    if (inserted) return inserted;
    return manager
      .getRepository(PaymentAttempt)
      .findOneByOrFail({ idempotencyKey: fields.idempotencyKey });
  }

  /**
   * Records a pending attempt's outcome and returns it settled, in one
   * statement that also locks it: null when it is no longer pending (another
   * caller settled it first; the row lock makes a racing caller wait for
   * that commit and then find it settled).
   */
  async settlePending(
    manager: EntityManager,
    id: number,
    changes: Pick<PaymentAttempt, 'status' | 'outcome' | 'updatedAt'>,
  ): Promise<PaymentAttempt | null> {
    const [settled] = await this.rows.query(
      `UPDATE payment_attempts attempt
          SET status = $2, outcome = $3::jsonb, updated_at = $4
        WHERE attempt.id = $1 AND attempt.status = 'pending'
        RETURNING ${this.rows.select}`,
      [
        id,
        changes.status,
        changes.outcome === null ? null : JSON.stringify(changes.outcome),
        changes.updatedAt,
      ],
      'payment-attempts.settle-pending',
      manager,
    );
    return settled ?? null;
  }

  /** A locked attempt's outcome, in one UPDATE. */
  async settle(
    manager: EntityManager,
    attempt: PaymentAttempt,
    changes: Pick<PaymentAttempt, 'status' | 'outcome' | 'updatedAt'>,
  ): Promise<void> {
    await manager.getRepository(PaymentAttempt).update(attempt.id, changes);
    Object.assign(attempt, changes);
  }

  /** Minor units that pending refunds of a record may still give back. */
  async pendingRefunds(
    manager: EntityManager,
    purpose: string,
    subjectId: number,
  ): Promise<number> {
    const row = await manager
      .getRepository(PaymentAttempt)
      .createQueryBuilder('attempt')
      .select('COALESCE(SUM(attempt.amount), 0)', 'sum')
      .where('attempt.purpose = :purpose', { purpose })
      .andWhere('attempt.subject_id = :subjectId', { subjectId })
      .andWhere(`attempt.status = 'pending'`)
      .getRawOne<{ sum: string }>();
    return Number(row?.sum ?? 0);
  }

  /**
   * Serialises the refunds of the processor's payment `paymentId` until the
   * transaction ends, whichever record they go through (an order and its
   * subscription's initial invoice are locked apart).
   */
  async lockPayment(manager: EntityManager, paymentId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `payment:${paymentId}`,
    ]);
  }

  /**
   * Every refund attempt on the processor's payment `paymentId` in the
   * store (settled or not, of every record it paid: an order and its
   * subscription's first invoice share one), to match the processor's list.
   */
  refundsOfPayment(
    manager: EntityManager,
    tenancy: { storeId: number; testMode: boolean },
    paymentId: string,
  ): Promise<PaymentAttempt[]> {
    return scoped(
      manager.getRepository(PaymentAttempt).createQueryBuilder('attempt'),
      'attempt',
      tenancy,
    )
      .andWhere(`attempt.kind = 'refund'`)
      .andWhere('attempt.payment_id = :paymentId', { paymentId })
      .getMany();
  }

  /** The store's pending charge (in the mode) on the processor's payment `paymentId`. */
  findPendingCharge(
    tenancy: { storeId: number; testMode: boolean },
    paymentId: string,
  ): Promise<PaymentAttempt | null> {
    return scoped(
      this.attempts.createQueryBuilder('attempt'),
      'attempt',
      tenancy,
    )
      .andWhere(`attempt.kind = 'charge'`)
      .andWhere(`attempt.status = 'pending'`)
      .andWhere('attempt.payment_id = :paymentId', { paymentId })
      .getOne();
  }

  /**
   * The refund attempt of the processor's refund `refundId` in the store:
   * Zest's own (its outcome names the refund) or one recorded from the
   * processor's report (keyed by the refund), locked.
   */
  lockRefund(
    manager: EntityManager,
    tenancy: { storeId: number; testMode: boolean },
    refundId: string,
  ): Promise<PaymentAttempt | null> {
    return scoped(
      manager.getRepository(PaymentAttempt).createQueryBuilder('attempt'),
      'attempt',
      tenancy,
    )
      .andWhere(`attempt.kind = 'refund'`)
      .andWhere(
        `(attempt.outcome->>'paymentId' = :refundId OR attempt.idempotency_key = :key)`,
        { refundId, key: `processor-refund-${refundId}` },
      )
      .orderBy('attempt.id', 'ASC')
      .setLock('pessimistic_write')
      .getOne();
  }

  /** A record's attempt of one of `purposes` still waiting for its outcome. */
  findPending(
    manager: EntityManager,
    purposes: string[],
    subjectId: number,
  ): Promise<PaymentAttempt | null> {
    return manager
      .getRepository(PaymentAttempt)
      .createQueryBuilder('attempt')
      .where('attempt.purpose IN (:...purposes)', { purposes })
      .andWhere('attempt.subject_id = :subjectId', { subjectId })
      .andWhere(`attempt.status = 'pending'`)
      .orderBy('attempt.id', 'ASC')
      .getOne();
  }

  /**
   * Attempts still pending since before `before`, oldest first: charges and
   * refunds by creation; intent attempts (confirmed in the browser) by
   * their last check, so that each is looked at again only once a while.
   */
  findStale(before: Date, limit: number): Promise<PaymentAttempt[]> {
    return this.attempts
      .createQueryBuilder('attempt')
      .where(`attempt.status = 'pending'`)
      .andWhere(
        `((attempt.kind <> 'intent' AND attempt.created_at < :before) OR (attempt.kind = 'intent' AND attempt.updated_at < :before))`,
        { before },
      )
      .orderBy('attempt.created_at', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** The attempt of a PaymentIntent or SetupIntent in a store's Stripe account of a mode. */
  findIntent(
    storeId: number,
    testMode: boolean,
    intentId: string,
  ): Promise<PaymentAttempt | null> {
    return this.attempts.findOneBy({
      storeId,
      testMode,
      kind: 'intent',
      paymentId: intentId,
    });
  }

  /** A record's intent attempt (a hosted purchase's order has one). */
  findIntentOf(
    purpose: string,
    subjectId: number,
  ): Promise<PaymentAttempt | null> {
    return this.attempts.findOneBy({ purpose, subjectId, kind: 'intent' });
  }

  findByKey(idempotencyKey: string): Promise<PaymentAttempt | null> {
    return this.attempts.findOneBy({ idempotencyKey });
  }

  /** Records an intent attempt's intent; the first recorded stays. Returns the recorded one. */
  async recordIntent(id: number, intentId: string): Promise<string | null> {
    await this.attempts
      .createQueryBuilder()
      .update(PaymentAttempt)
      .set({ paymentId: intentId })
      .where('id = :id AND payment_id IS NULL', { id })
      .execute();
    const row = await this.attempts.findOneBy({ id });
    return row?.paymentId ?? null;
  }

  /** Marks a pending attempt as looked at (the sweeper's pace for intents). */
  async touch(id: number, at: Date): Promise<void> {
    await this.attempts
      .createQueryBuilder()
      .update(PaymentAttempt)
      .set({ updatedAt: at })
      .where(`id = :id AND status = 'pending'`, { id })
      .execute();
  }
}
