import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyKeys1763750000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763750000000';

  async up(db: QueryRunner): Promise<void> {
    // One row per (user, mode, Idempotency-Key): in flight while locked_at is
    // set and response_status is null, then the stored response for 24 hours.
    await db.query(`
      CREATE TABLE idempotency_keys (
        id bigserial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        claim uuid NOT NULL,
        locked_at timestamptz,
        response_status integer,
        response_headers jsonb,
        response_body bytea,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    // The unique index decides the race between parallel first requests.
    await db.query(
      `CREATE UNIQUE INDEX idempotency_keys_scope_key ON idempotency_keys (user_id, test_mode, key)`,
    );
    await db.query(
      `CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE idempotency_keys`);
  }
}
