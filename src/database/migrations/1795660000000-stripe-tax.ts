import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stripe Tax as a second tax provider. Stores choose theirs
 * (`tax_provider`: the built-in tables or Stripe Tax). Each tax transaction
 * and reversal to record in Stripe after a paid order or a refund is a row
 * here, written in the transaction that makes the sale or the refund: the
 * marker that makes the worker's call to Stripe happen once (its reference
 * is also Stripe's idempotency key), and the record of what Stripe answered.
 */
export class StripeTax1795660000000 implements MigrationInterface {
  name = 'StripeTax1795660000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE stores
        ADD COLUMN tax_provider text NOT NULL DEFAULT 'builtin'
          CHECK (tax_provider IN ('builtin', 'stripe'))`);
    await db.query(`
      CREATE TABLE stripe_tax_records (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        order_id integer NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('transaction', 'reversal')),
        reference text NOT NULL,
        calculation_id text,
        refund_amount integer,
        stripe_id text,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        created_at timestamptz NOT NULL,
        recorded_at timestamptz,
        UNIQUE (store_id, test_mode, reference)
      )`);
    await db.query(`
      CREATE INDEX stripe_tax_records_open
        ON stripe_tax_records (created_at) WHERE recorded_at IS NULL`);
    await db.query(
      `CREATE INDEX stripe_tax_records_order ON stripe_tax_records (order_id)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE stripe_tax_records`);
    await db.query(`ALTER TABLE stores DROP COLUMN tax_provider`);
  }
}
