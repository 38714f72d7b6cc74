import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { StripeEvent } from './stripe-event.entity';

/** Every query for the Stripe event inbox. */
@Injectable()
export class StripeEventRepository {
  constructor(
    @InjectRepository(StripeEvent)
    private readonly events: Repository<StripeEvent>,
  ) {}

  /**
   * Stores an event unless the store has it already (one statement, so
   * parallel deliveries of one event store it once). Returns the new row's
   * id, or null for a replay.
   */
  async insertIfAbsent(
    fields: Omit<StripeEvent, 'id' | 'processedAt' | 'attempts' | 'lastError'>,
  ): Promise<string | null> {
    const result = await this.events
      .createQueryBuilder()
      .insert()
      .into(StripeEvent)
      .values({
        ...fields,
        // A JSON document of Stripe's: stored as is (jsonb).
        payload: fields.payload as never,
        processedAt: null,
        attempts: 0,
        lastError: null,
      })
      .orIgnore()
      .returning(['id'])
      .execute();
    const row = result.raw as { id: string }[];
    return row.length > 0 ? String(row[0].id) : null;
  }

  /**
   * Counts a processing attempt of an unprocessed event and returns it;
   * null once it is processed (or gone).
   */
  async startAttempt(id: string): Promise<StripeEvent | null> {
    const result = await this.events
      .createQueryBuilder()
      .update(StripeEvent)
      .set({ attempts: () => 'attempts + 1' })
      .where('id = :id', { id })
      .andWhere('processed_at IS NULL')
      .returning('*')
      .execute();
    const [row] = result.raw as Record<string, unknown>[];
    if (!row) return null;
    return this.events.create({
      id: String(row.id),
      storeId: row.store_id as number,
      testMode: row.test_mode as boolean,
      eventId: row.event_id as string,
      type: row.type as string,
      payload: row.payload as StripeEvent['payload'],
      receivedAt: row.received_at as Date,
      processedAt: null,
      attempts: row.attempts as number,
      lastError: row.last_error as string | null,
    });
  }

  /** Done with: handled, ignored, or refused for good (`error` then says why). */
  async markProcessed(
    id: string,
    at: Date,
    error: string | null,
  ): Promise<void> {
    await this.events.update(
      { id, processedAt: IsNull() },
      { processedAt: at, lastError: error },
    );
  }

  /** Processing failed for now; the event stays unprocessed for a retry. */
  async recordFailure(id: string, error: string): Promise<void> {
    await this.events.update({ id }, { lastError: error });
  }

  /** Forgets events processed before `before` (past Stripe's redelivery window). Returns how many. */
  async deleteProcessedBefore(before: Date): Promise<number> {
    const result = await this.events
      .createQueryBuilder()
      .delete()
      .from(StripeEvent)
      .where('processed_at < :before', { before })
      .execute();
    return result.affected ?? 0;
  }

  /** Unprocessed events received before `before` with fewer than `maxAttempts` tries, oldest first. */
  async findUnprocessed(
    before: Date,
    maxAttempts: number,
    limit: number,
  ): Promise<string[]> {
    const rows = await this.events
      .createQueryBuilder('event')
      .select('event.id', 'id')
      .where('event.processed_at IS NULL')
      .andWhere('event.received_at < :before', { before })
      .andWhere('event.attempts < :maxAttempts', { maxAttempts })
      .orderBy('event.received_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((row) => String(row.id));
  }
}
