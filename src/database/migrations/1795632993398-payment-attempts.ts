import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payment processor is never called inside a database transaction: a
 * use case first stores its intent here (a `pending` attempt keyed by the
 * idempotency key it sends the processor), calls the processor with no
 * transaction open, then records the outcome in a transaction of its own.
 * A crash between the two leaves a pending attempt, which the sweeper
 * replays with the same key (the processor answers the same) and settles.
 */
export class PaymentAttempts1795632993398 implements MigrationInterface {
  name = 'PaymentAttempts1795632993398';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE payment_attempts (
        id serial PRIMARY KEY,
        idempotency_key text NOT NULL UNIQUE,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        kind text NOT NULL CHECK (kind IN ('charge', 'refund')),
        purpose text NOT NULL,
        subject_id integer NOT NULL,
        amount integer NOT NULL CHECK (amount >= 0),
        currency char(3) NOT NULL,
        payment_method text,
        payment_id text,
        description text NOT NULL,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'succeeded', 'declined', 'failed')),
        outcome jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK (kind <> 'charge' OR payment_method IS NOT NULL),
        CHECK (kind <> 'refund' OR payment_id IS NOT NULL)
      )`);
    await db.query(`
      CREATE INDEX payment_attempts_pending
        ON payment_attempts (created_at) WHERE status = 'pending'`);
    await db.query(`
      CREATE INDEX payment_attempts_subject
        ON payment_attempts (purpose, subject_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE payment_attempts`);
  }
}
