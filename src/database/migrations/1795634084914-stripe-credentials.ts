import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A store's own Stripe account, per mode: test credentials are used in test
 * mode, live ones in live mode. The secret key and the webhook signing
 * secret are sealed with a key derived from APP_KEY (SealedBox); the
 * publishable key is public by design (the checkout page sends it to the
 * browser) but is kept sealed too, so the row holds no key in clear.
 */
export class StripeCredentials1795634084914 implements MigrationInterface {
  name = 'StripeCredentials1795634084914';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE stripe_credentials (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        secret_key_sealed text NOT NULL,
        publishable_key_sealed text NOT NULL,
        webhook_secret_sealed text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (store_id, test_mode)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE stripe_credentials`);
  }
}
