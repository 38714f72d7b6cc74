import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exchange rates fetched by the worker's refresh job, one row per currency
 * and day, in USD per one unit of the currency (the orders' `currency_rate`
 * convention and scale). Pricing reads the newest day of each currency; older
 * days stay as the record of what an order's `currency_rate_date` pointed at.
 * The shipped table and CURRENCY_RATES live in code and config, not here.
 *
 * Orders and subscription invoices keep the date of the rate they froze
 * (null: a rate set by CURRENCY_RATES, which has no date, or a row written
 * before this migration).
 */
export class ExchangeRates1764000000000 implements MigrationInterface {
  name = 'ExchangeRates1764000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE exchange_rates (
        currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$' AND currency <> 'USD'),
        rate_date date NOT NULL,
        rate numeric(20, 10) NOT NULL CHECK (rate > 0),
        source text NOT NULL,
        fetched_at timestamptz NOT NULL,
        PRIMARY KEY (currency, rate_date)
      )`);
    await db.query(`ALTER TABLE orders ADD COLUMN currency_rate_date date`);
    await db.query(
      `ALTER TABLE subscription_invoices ADD COLUMN currency_rate_date date`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE subscription_invoices DROP COLUMN currency_rate_date`,
    );
    await db.query(`ALTER TABLE orders DROP COLUMN currency_rate_date`);
    await db.query(`DROP TABLE exchange_rates`);
  }
}
