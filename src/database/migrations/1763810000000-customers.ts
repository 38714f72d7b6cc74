import { MigrationInterface, QueryRunner } from 'typeorm';

export class Customers1763810000000 implements MigrationInterface {
  name = 'Customers1763810000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE customers (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        name text NOT NULL,
        email text NOT NULL,
        status text NOT NULL DEFAULT 'subscribed' CHECK (status IN (
          'subscribed', 'unsubscribed', 'archived', 'requires_verification',
          'invalid_email', 'bounced')),
        city text,
        region text,
        country char(2),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One customer per store, mode and address; the purchase flow's
    // INSERT … ON CONFLICT names exactly this index. Also serves filter[email].
    await db.query(
      `CREATE UNIQUE INDEX customers_store_mode_email_key
         ON customers (store_id, test_mode, lower(email))`,
    );
    // The list: a store's customers in one mode, newest first, id as tie-breaker.
    await db.query(
      `CREATE INDEX customers_store_mode_created_idx
         ON customers (store_id, test_mode, created_at DESC, id DESC)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE customers`);
  }
}
