import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The mail outbox. A message row is written in the transaction of the
 * change that causes it (a paid order …); `cause_key` is unique, so each
 * cause mails at most once whatever retries or duplicates happen. The worker
 * renders it (subject, parts, From) on its first claim and sends it;
 * `status` moves queued → sending → sent | failed, back to queued for a
 * retry. `message_id` is fixed before the first SMTP call and kept across
 * retries. Per-store From / Reply-To live on `stores`.
 */
export class Mail1795633103041 implements MigrationInterface {
  name = 'Mail1795633103041';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE mail_messages (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        customer_id integer REFERENCES customers (id) ON DELETE SET NULL,
        test_mode boolean NOT NULL,
        kind text NOT NULL,
        cause_key text NOT NULL UNIQUE,
        record_id integer NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        to_address text NOT NULL,
        from_address text,
        reply_to text,
        subject text,
        html text,
        text text,
        status text NOT NULL DEFAULT 'queued'
          CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        claimed_until timestamptz,
        enqueued_at timestamptz,
        message_id text,
        smtp_reply text,
        sent_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // The worker's sweep: due messages and expired claims, oldest first.
    await db.query(`
      CREATE INDEX mail_messages_due_idx ON mail_messages (next_attempt_at, id)
        WHERE status IN ('queued', 'sending')`);
    await db.query(`
      CREATE INDEX mail_messages_customer_idx
        ON mail_messages (store_id, test_mode, customer_id, id)`);
    await db.query(`ALTER TABLE stores ADD COLUMN mail_from text`);
    await db.query(`ALTER TABLE stores ADD COLUMN mail_reply_to text`);
    await db.query(
      `ALTER TABLE stores ADD COLUMN mail_disabled_kinds text[] NOT NULL DEFAULT '{}'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE stores DROP COLUMN mail_disabled_kinds`);
    await db.query(`ALTER TABLE stores DROP COLUMN mail_reply_to`);
    await db.query(`ALTER TABLE stores DROP COLUMN mail_from`);
    await db.query(`DROP TABLE mail_messages`);
  }
}
