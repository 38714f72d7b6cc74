import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hosted checkout's Stripe payments. A purchase paid in the browser
 * (Stripe's Payment Element) stores an `intent` attempt: no payment method,
 * the PaymentIntent's (or SetupIntent's) id in `payment_id` once created,
 * one attempt per intent. Each Zest customer is linked to one Stripe
 * Customer per mode, created on their first hosted payment.
 */
export class StripeCheckout1795650000000 implements MigrationInterface {
  name = 'StripeCheckout1795650000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_kind_check`,
    );
    await db.query(`
      ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_kind_check
        CHECK (kind IN ('charge', 'refund', 'intent'))`);
    await db.query(`
      CREATE UNIQUE INDEX payment_attempts_intent
        ON payment_attempts (store_id, test_mode, payment_id)
        WHERE kind = 'intent' AND payment_id IS NOT NULL`);
    await db.query(`
      CREATE TABLE stripe_customers (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
        stripe_customer_id text NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (store_id, test_mode, customer_id)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE stripe_customers`);
    await db.query(`DROP INDEX payment_attempts_intent`);
    await db.query(`DELETE FROM payment_attempts WHERE kind = 'intent'`);
    await db.query(
      `ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_kind_check`,
    );
    await db.query(`
      ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_kind_check
        CHECK (kind IN ('charge', 'refund'))`);
  }
}
