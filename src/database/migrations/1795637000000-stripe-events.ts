import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The inbox of events Stripe sends to a store's endpoint: each event stored
 * once per store (a replay finds its row), then processed by the worker;
 * rows still unprocessed are swept. An order's dispute (an extension
 * attribute), and the payment-reference lookups Stripe's events need.
 */
export class StripeEvents1795637000000 implements MigrationInterface {
  name = 'StripeEvents1795637000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE stripe_events (
        id bigserial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        event_id text NOT NULL,
        type text NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL,
        processed_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        UNIQUE (store_id, event_id)
      )`);
    await db.query(`
      CREATE INDEX stripe_events_unprocessed ON stripe_events (received_at)
        WHERE processed_at IS NULL`);
    await db.query(`ALTER TABLE orders ADD COLUMN dispute jsonb`);
    await db.query(`
      CREATE INDEX orders_payment_reference
        ON orders (store_id, test_mode, payment_reference)
        WHERE payment_reference IS NOT NULL`);
    await db.query(`
      CREATE INDEX subscription_invoices_payment_reference
        ON subscription_invoices (store_id, test_mode, payment_reference)
        WHERE payment_reference IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX subscription_invoices_payment_reference`);
    await db.query(`DROP INDEX orders_payment_reference`);
    await db.query(`ALTER TABLE orders DROP COLUMN dispute`);
    await db.query(`DROP TABLE stripe_events`);
  }
}
