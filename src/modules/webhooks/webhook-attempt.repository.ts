import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { DeliveryStatus } from './webhook-delivery.repository';

/** What a worker needs to send one attempt; holds the sealed secret, so it is never logged. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventName: string;
  testMode: boolean;
  data: unknown;
  customData: Record<string, unknown> | null;
  webhookId: number;
  url: string;
  secretEncrypted: string;
  scheduleStart: number;
}

export interface AttemptOutcome {
  attempt: number;
  status: DeliveryStatus;
  responseCode: number | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
  nextAttemptAt: Date | null;
}

/**
 * The worker's send path: claiming due attempts and recording their
 * outcomes, each batched into one statement (raw SQL: the hottest worker path).
 */
@Injectable()
export class WebhookAttemptRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims due attempts in one statement: each `{ id, attempt }` whose
   * delivery is pending at the attempt before and not claimed by a live
   * sender is claimed for `claimMs`. Answers in input order; null where the
   * attempt is not due (done, claimed, or a duplicate within the batch).
   * Rows are locked in id order, so concurrent batches never deadlock.
   */
  async claimMany(
    requests: { id: string; attempt: number }[],
    claimMs: number,
  ): Promise<(ClaimedDelivery | null)[]> {
    const rows: {
      id: string;
      attempt: number;
      event_id: string;
      event_name: string;
      test_mode: boolean;
      data: unknown;
      custom_data: Record<string, unknown> | null;
      webhook_id: number;
      url: string;
      secret_encrypted: string;
      schedule_start: number;
    }[] = await this.dataSource.query(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
           JOIN unnest($1::bigint[], $2::integer[]) AS r(id, attempt)
             ON d.id = r.id AND d.attempts = r.attempt - 1
          WHERE d.status = 'pending'
            AND (d.claimed_until IS NULL OR d.claimed_until < now())
          ORDER BY d.id
            FOR NO KEY UPDATE OF d),
       claimed AS (
         UPDATE webhook_deliveries d
            SET claimed_until = now() + $3 * interval '1 millisecond'
           FROM (SELECT DISTINCT id FROM due) u
          WHERE d.id = u.id
          RETURNING d.id, d.attempts + 1 AS attempt, d.event_id, d.webhook_id,
                    d.schedule_start)
       SELECT c.id::text AS id, c.attempt, c.event_id::text AS event_id,
              e.name AS event_name, e.test_mode, e.data, e.custom_data,
              w.id AS webhook_id, w.url, w.secret_encrypted, c.schedule_start
         FROM claimed c
         JOIN webhook_events e ON e.id = c.event_id
         JOIN webhooks w ON w.id = c.webhook_id`,
      [
        requests.map((request) => request.id),
        requests.map((request) => request.attempt),
        claimMs,
      ],
    );
    // Each claimed row answers the first request for it.
    const claimed = new Map(
      rows.map((row) => [`${row.id}:${row.attempt}`, row]),
    );
    return requests.map((request) => {
      const key = `${request.id}:${request.attempt}`;
      const row = claimed.get(key);
      if (!row) return null;
      claimed.delete(key);
      return {
        id: row.id,
        eventId: row.event_id,
        eventName: row.event_name,
        testMode: row.test_mode,
        data: row.data,
        customData: row.custom_data,
        webhookId: row.webhook_id,
        url: row.url,
        secretEncrypted: row.secret_encrypted,
        scheduleStart: row.schedule_start,
      };
    });
  }

  /**
   * Records finished attempts and their deliveries' new state in one
   * statement (one round trip and one commit for the batch). Answers in
   * input order: false where the attempt was recorded already (a duplicate
   * worker lost the race); nothing is written for it then. Deliveries, then
   * webhooks, are locked in id order, so concurrent batches never deadlock.
   * The locks are NO KEY UPDATE, as the updates' own: FOR UPDATE would also
   * wait for every open transaction holding the key share that a new row
   * referencing the webhook takes (the relay's, while it inserts deliveries).
   */
  async finishMany(
    finished: { id: string; outcome: AttemptOutcome }[],
  ): Promise<boolean[]> {
    const column = <T>(pick: (outcome: AttemptOutcome) => T) =>
      finished.map((entry) => pick(entry.outcome));
    const rows: { id: string; attempt: number }[] = await this.dataSource.query(
      `WITH input AS (
         SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[],
                              $4::timestamptz[], $5::integer[], $6::timestamptz[],
                              $7::timestamptz[], $8::text[], $9::integer[])
             AS i(id, attempt, status, next_attempt_at, response_code, started_at,
                  finished_at, error, duration_ms)),
       locked AS (
         SELECT d.id FROM webhook_deliveries d
           JOIN input i ON d.id = i.id AND d.attempts = i.attempt - 1
          ORDER BY d.id
            FOR NO KEY UPDATE OF d),
       updated AS (
         UPDATE webhook_deliveries d
            SET attempts = i.attempt, status = i.status,
                next_attempt_at = i.next_attempt_at,
                last_response_code = i.response_code, last_attempt_at = i.started_at,
                delivered_at = CASE WHEN i.status = 'succeeded' THEN i.finished_at
                                    ELSE d.delivered_at END,
                claimed_until = NULL, updated_at = now()
           FROM (SELECT DISTINCT ON (i.id) i.* FROM input i
                   JOIN locked l ON l.id = i.id ORDER BY i.id) i
          WHERE d.id = i.id AND d.attempts = i.attempt - 1
          RETURNING d.id, d.webhook_id, i.attempt, i.status, i.response_code,
                    i.error, i.duration_ms, i.started_at, i.finished_at),
       attempt AS (
         INSERT INTO webhook_delivery_attempts
           (delivery_id, attempt, status, response_code, error, duration_ms,
            started_at, finished_at)
         SELECT id, attempt,
                CASE WHEN status = 'succeeded' THEN 'succeeded' ELSE 'failed' END,
                response_code, error, duration_ms, started_at, finished_at
           FROM updated),
       -- A webhook's last send: skipped when a later one is recorded already.
       sent AS (
         SELECT webhook_id, max(started_at) AS sent_at FROM updated
          WHERE response_code IS NOT NULL GROUP BY webhook_id),
       hooks AS (
         SELECT w.id FROM webhooks w JOIN sent s ON s.webhook_id = w.id
          ORDER BY w.id
            FOR NO KEY UPDATE OF w),
       marked AS (
         UPDATE webhooks w SET last_sent_at = s.sent_at
           FROM sent s
          WHERE w.id = s.webhook_id AND w.id IN (SELECT id FROM hooks)
            AND (w.last_sent_at IS NULL OR w.last_sent_at < s.sent_at))
       SELECT id::text AS id, attempt FROM updated`,
      [
        finished.map((entry) => entry.id),
        column((outcome) => outcome.attempt),
        column((outcome) => outcome.status),
        column((outcome) => outcome.nextAttemptAt),
        column((outcome) => outcome.responseCode),
        column((outcome) => outcome.startedAt),
        column((outcome) => outcome.finishedAt),
        column((outcome) => outcome.error),
        column((outcome) => outcome.durationMs),
      ],
    );
    // Each recorded row answers the first entry for it.
    const recorded = new Set(rows.map((row) => `${row.id}:${row.attempt}`));
    return finished.map((entry) =>
      recorded.delete(`${entry.id}:${entry.outcome.attempt}`),
    );
  }
}
