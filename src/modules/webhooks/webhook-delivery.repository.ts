import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { SqlScope, sqlScope } from '../../database/tenancy';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryAttempt {
  attempt: number;
  status: 'succeeded' | 'failed';
  responseCode: number | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
}

export interface DeliveryView {
  id: string;
  webhookId: number;
  eventId: string;
  eventName: string;
  testMode: boolean;
  status: DeliveryStatus;
  attempts: number;
  lastResponseCode: number | null;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  attemptLog: DeliveryAttempt[];
}

export interface DueDelivery {
  id: string;
  attempts: number;
  nextAttemptAt: Date;
}

interface DeliveryRow {
  id: string;
  webhook_id: number;
  event_id: string;
  event_name: string;
  test_mode: boolean;
  status: DeliveryStatus;
  attempts: number;
  last_response_code: number | null;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** TypeORM answers UPDATE … RETURNING with [rows, rowCount]; this returns the rows. */
async function updateReturning<T>(
  runner: Pick<EntityManager, 'query'>,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const [rows] = (await runner.query(sql, params)) as [T[], number];
  return rows;
}

const DELIVERY_COLUMNS = `
  d.id::text AS id, d.webhook_id, d.event_id::text AS event_id, e.name AS event_name,
  w.test_mode, d.status, d.attempts, d.last_response_code, d.next_attempt_at,
  d.last_attempt_at, d.delivered_at, d.created_at, d.updated_at`;

/** Deliveries of the webhooks in the scope (a delivery is its webhook's). */
const visibleFrom = (scope: SqlScope) => `
  FROM webhook_deliveries d
  JOIN webhook_events e ON e.id = d.event_id
  JOIN webhooks w ON w.id = d.webhook_id
  WHERE ${scope.on('w')}`;

/**
 * The outbox's relay and retention, and the API's reads of deliveries (raw
 * SQL: hot worker paths). Sending attempts is WebhookAttemptRepository's.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Turns up to `limit` unrelayed events into deliveries, one per matching
   * webhook, and marks the events relayed, all in one transaction. SKIP
   * LOCKED lets several relays run side by side; the unique (event, webhook)
   * key makes a repeated relay insert nothing. Returns the new deliveries.
   */
  relayBatch(limit: number): Promise<{ ids: string[]; events: number }> {
    return this.dataSource.transaction(async (manager) => {
      const events: { id: string }[] = await manager.query(
        `SELECT id::text AS id FROM webhook_events
          WHERE relayed_at IS NULL ORDER BY id LIMIT $1
          FOR NO KEY UPDATE SKIP LOCKED`,
        [limit],
      );
      if (events.length === 0) return { ids: [], events: 0 };
      const eventIds = events.map((e) => e.id);
      // Only webhooks that existed when the event happened receive it.
      const inserted: { id: string }[] = await manager.query(
        `INSERT INTO webhook_deliveries (event_id, webhook_id, next_attempt_at)
         SELECT e.id, w.id, now()
           FROM webhook_events e
           JOIN webhooks w ON w.store_id = e.store_id
                          AND w.test_mode = e.test_mode
                          AND e.name = ANY (w.events)
                          AND w.created_at <= e.created_at
          WHERE e.id = ANY ($1::bigint[])
         ORDER BY e.id, w.id
         ON CONFLICT (event_id, webhook_id) DO NOTHING
         RETURNING id::text AS id`,
        [eventIds],
      );
      await manager.query(
        `UPDATE webhook_events SET relayed_at = now() WHERE id = ANY ($1::bigint[])`,
        [eventIds],
      );
      return { ids: inserted.map((row) => row.id), events: events.length };
    });
  }

  /**
   * Deletes up to `limit` events older than `days` (their deliveries and
   * attempts cascade), never one that still has a pending delivery.
   */
  async deleteOlderThan(days: number, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM webhook_events WHERE id IN (
         SELECT e.id FROM webhook_events e
          WHERE e.created_at < now() - $1 * interval '1 day'
            AND e.relayed_at IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                             WHERE d.event_id = e.id AND d.status = 'pending')
          ORDER BY e.created_at LIMIT $2)`,
      [days, limit],
    )) as [unknown[], number];
    return deleted;
  }

  /** Pending deliveries that are due and not being sent by a live worker. */
  async due(limit: number): Promise<DueDelivery[]> {
    const rows: { id: string; attempts: number; next_attempt_at: Date }[] =
      await this.dataSource.query(
        `SELECT id::text AS id, attempts, next_attempt_at FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
            AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY next_attempt_at, id LIMIT $1`,
        [limit],
      );
    return rows.map((row) => ({
      id: row.id,
      attempts: row.attempts,
      nextAttemptAt: row.next_attempt_at,
    }));
  }

  /**
   * Sends a finished delivery again (or a pending one now), with a fresh
   * retry schedule. Returns the attempt to enqueue, or null if not visible.
   */
  async resend(
    principal: Principal,
    id: string,
  ): Promise<{ attempt: number } | null> {
    const params: unknown[] = [];
    const scope = sqlScope(principal, params);
    params.push(id);
    const rows = await updateReturning<{ attempts: number }>(
      this.dataSource,
      `UPDATE webhook_deliveries d
          SET status = 'pending', next_attempt_at = now(), schedule_start = d.attempts,
              updated_at = now()
         FROM webhooks w
        WHERE d.id = $${params.length} AND w.id = d.webhook_id AND ${scope.on('w')}
        RETURNING d.attempts`,
      params,
    );
    return rows[0] ? { attempt: rows[0].attempts + 1 } : null;
  }

  async findVisible(
    principal: Principal,
    ids: string[],
  ): Promise<DeliveryView[]> {
    if (ids.length === 0) return [];
    const params: unknown[] = [];
    const from = visibleFrom(sqlScope(principal, params));
    params.push(ids);
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT ${DELIVERY_COLUMNS} ${from} AND d.id = ANY ($${params.length}::bigint[]) ORDER BY d.id`,
      params,
    );
    return this.withAttempts(rows);
  }

  async findByWebhooks(
    principal: Principal,
    webhookIds: number[],
  ): Promise<DeliveryView[]> {
    if (webhookIds.length === 0) return [];
    const params: unknown[] = [];
    const from = visibleFrom(sqlScope(principal, params));
    params.push(webhookIds);
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT ${DELIVERY_COLUMNS} ${from} AND d.webhook_id = ANY ($${params.length}::int[])
        ORDER BY d.created_at DESC, d.id DESC`,
      params,
    );
    return this.withAttempts(rows);
  }

  /** A page of deliveries, filtered by webhook_id and status; the caller has checked the webhook is visible. */
  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<DeliveryView>> {
    const params: unknown[] = [];
    const from = visibleFrom(sqlScope(principal, params));
    let where = '';
    if (query.filters.webhook_id !== undefined) {
      params.push(query.filters.webhook_id);
      where += ` AND d.webhook_id = $${params.length}`;
    }
    if (query.filters.status !== undefined) {
      params.push(query.filters.status);
      where += ` AND d.status = $${params.length}`;
    }
    const order = query.sort
      .map((key) => `d.${key.field} ${key.descending ? 'DESC' : 'ASC'}`)
      .join(', ');
    const last = query.sort[query.sort.length - 1];
    const [{ total }]: { total: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS total ${from}${where}`,
      params,
    );
    params.push(query.page.size, (query.page.number - 1) * query.page.size);
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT ${DELIVERY_COLUMNS} ${from}${where}
        ORDER BY ${order}, d.id ${last?.descending ? 'DESC' : 'ASC'}
        LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return { records: await this.withAttempts(rows), total };
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<DeliveryView[]> {
    if (rows.length === 0) return [];
    const attempts: {
      delivery_id: string;
      attempt: number;
      status: 'succeeded' | 'failed';
      response_code: number | null;
      error: string | null;
      duration_ms: number;
      started_at: Date;
      finished_at: Date;
    }[] = await this.dataSource.query(
      `SELECT delivery_id::text AS delivery_id, attempt, status, response_code, error,
              duration_ms, started_at, finished_at
         FROM webhook_delivery_attempts
        WHERE delivery_id = ANY ($1::bigint[])
        ORDER BY delivery_id, attempt`,
      [rows.map((row) => row.id)],
    );
    const byDelivery = new Map<string, DeliveryAttempt[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push({
        attempt: a.attempt,
        status: a.status,
        responseCode: a.response_code,
        error: a.error,
        durationMs: a.duration_ms,
        startedAt: a.started_at,
        finishedAt: a.finished_at,
      });
      byDelivery.set(a.delivery_id, list);
    }
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      eventId: row.event_id,
      eventName: row.event_name,
      testMode: row.test_mode,
      status: row.status,
      attempts: row.attempts,
      lastResponseCode: row.last_response_code,
      nextAttemptAt: row.next_attempt_at,
      lastAttemptAt: row.last_attempt_at,
      deliveredAt: row.delivered_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      attemptLog: byDelivery.get(row.id) ?? [],
    }));
  }
}
