import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stripe Tax on renewals: a renewal invoice of a Stripe Tax store is priced
 * by a calculation of its own (kept on the invoice as `tax_rate_source`,
 * `stripe_tax:taxcalc_…`), and its tax transaction and reversals are owed
 * under the invoice instead of the order. A record belongs to exactly one
 * of the two.
 */
export class StripeTaxInvoices1795690000000 implements MigrationInterface {
  name = 'StripeTaxInvoices1795690000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE subscription_invoices ADD COLUMN tax_rate_source text`,
    );
    await db.query(`
      ALTER TABLE stripe_tax_records
        ALTER COLUMN order_id DROP NOT NULL,
        ADD COLUMN subscription_invoice_id integer
          REFERENCES subscription_invoices (id) ON DELETE CASCADE,
        ADD CONSTRAINT stripe_tax_records_one_sale
          CHECK ((order_id IS NULL) <> (subscription_invoice_id IS NULL))`);
    await db.query(`
      CREATE INDEX stripe_tax_records_invoice
        ON stripe_tax_records (subscription_invoice_id)
        WHERE subscription_invoice_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DELETE FROM stripe_tax_records WHERE subscription_invoice_id IS NOT NULL`,
    );
    await db.query(`
      ALTER TABLE stripe_tax_records
        DROP CONSTRAINT stripe_tax_records_one_sale,
        DROP COLUMN subscription_invoice_id,
        ALTER COLUMN order_id SET NOT NULL`);
    await db.query(
      `ALTER TABLE subscription_invoices DROP COLUMN tax_rate_source`,
    );
  }
}
