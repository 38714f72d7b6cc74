import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PaymentAttempt } from './payment-attempt.entity';

/** Every query for payment attempts. */
@Injectable()
export class PaymentAttemptRepository {
  constructor(
    @InjectRepository(PaymentAttempt)
    private readonly attempts: Repository<PaymentAttempt>,
  ) {}

  /**
   * Stores an attempt; an attempt with the same key already stored is
   * returned instead (a retried request replays the same processor call).
   */
  async insertOrFind(
    manager: EntityManager,
    fields: Omit<PaymentAttempt, 'id'>,
  ): Promise<PaymentAttempt> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(PaymentAttempt)
      .values(fields)
      .orIgnore()
      .execute();
    return manager
      .getRepository(PaymentAttempt)
      .findOneByOrFail({ idempotencyKey: fields.idempotencyKey });
  }

  lock(manager: EntityManager, id: number): Promise<PaymentAttempt | null> {
    return manager
      .getRepository(PaymentAttempt)
      .createQueryBuilder('attempt')
      .where('attempt.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  save(manager: EntityManager, attempt: PaymentAttempt): Promise<unknown> {
    return manager.getRepository(PaymentAttempt).save(attempt);
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

  /** Attempts still pending since before `before`, oldest first. */
  findStale(before: Date, limit: number): Promise<PaymentAttempt[]> {
    return this.attempts
      .createQueryBuilder('attempt')
      .where(`attempt.status = 'pending'`)
      .andWhere('attempt.created_at < :before', { before })
      .orderBy('attempt.created_at', 'ASC')
      .limit(limit)
      .getMany();
  }
}
