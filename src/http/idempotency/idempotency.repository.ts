import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface IdempotencyScope {
  userId: number;
  testMode: boolean;
  key: string;
}

export interface StoredRecord {
  fingerprint: string;
  /** null while the first request is in flight. */
  status: number | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
}

/** Every query for idempotency_keys; raw SQL, as it runs on every keyed POST. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Inserts an in-flight row, or takes over an expired one or an abandoned
   * in-flight one with the same fingerprint. Returns the row id, or null when
   * another row holds the key.
   */
  async claim(
    scope: IdempotencyScope,
    fingerprint: string,
    claim: string,
    now: Date,
    expiresAt: Date,
    abandonedBefore: Date,
  ): Promise<string | null> {
    const rows: { id: string }[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys
         (user_id, test_mode, key, fingerprint, claim, locked_at, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
       ON CONFLICT (user_id, test_mode, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim,
             locked_at = EXCLUDED.locked_at, created_at = EXCLUDED.created_at,
             expires_at = EXCLUDED.expires_at, response_status = NULL,
             response_headers = NULL, response_body = NULL
         WHERE idempotency_keys.expires_at <= $6
            OR (idempotency_keys.response_status IS NULL
                AND idempotency_keys.locked_at <= $8
                AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
       RETURNING id`,
      [
        scope.userId,
        scope.testMode,
        scope.key,
        fingerprint,
        claim,
        now,
        expiresAt,
        abandonedBefore,
      ],
    );
    return rows.length > 0 ? String(rows[0].id) : null;
  }

  async find(scope: IdempotencyScope): Promise<StoredRecord | null> {
    const rows: {
      fingerprint: string;
      response_status: number | null;
      response_headers: Record<string, string> | null;
      response_body: Buffer | null;
    }[] = await this.dataSource.query(
      `SELECT fingerprint, response_status, response_headers, response_body
         FROM idempotency_keys
        WHERE user_id = $1 AND test_mode = $2 AND key = $3`,
      [scope.userId, scope.testMode, scope.key],
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    return {
      fingerprint: row.fingerprint,
      status: row.response_status,
      headers: row.response_headers,
      body: row.response_body,
    };
  }

  /** Stores the response; a no-op if the claim was taken over meanwhile. */
  async complete(
    id: string,
    claim: string,
    status: number,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys
          SET response_status = $3, response_headers = $4, response_body = $5,
              locked_at = NULL
        WHERE id = $1 AND claim = $2`,
      [id, claim, status, JSON.stringify(headers), body],
    );
  }

  async release(id: string, claim: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE id = $1 AND claim = $2`,
      [id, claim],
    );
  }

  /**
   * Deletes up to `batch` expired rows; returns how many. TypeORM answers a
   * DELETE with `[rows, rowCount]`, not with the rows.
   */
  async purgeExpired(now: Date, batch: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM idempotency_keys
        WHERE id IN (SELECT id FROM idempotency_keys
                      WHERE expires_at <= $1 LIMIT $2)`,
      [now, batch],
    )) as [unknown[], number];
    return deleted;
  }
}
