import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscription invoices keep what they bill: their lines and the tax name
 * and rate they were computed with, so an invoice PDF shows what was charged
 * even after the subscription changes plan, quantity or name.
 */
export class SubscriptionInvoiceLines1763970000000 implements MigrationInterface {
  name = 'SubscriptionInvoiceLines1763970000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE subscription_invoices
        ADD COLUMN tax_name text,
        ADD COLUMN tax_rate numeric(7, 4) NOT NULL DEFAULT 0,
        ADD COLUMN lines jsonb`);
    // Earlier invoices recorded only totals: one line for the whole subtotal.
    await db.query(`
      UPDATE subscription_invoices AS i
      SET tax_name = s.tax_name,
          tax_rate = s.tax_rate,
          lines = jsonb_build_array(jsonb_build_object(
            'description', CASE WHEN s.variant_name = 'Default' THEN s.product_name
                                ELSE s.product_name || ' - ' || s.variant_name END,
            'quantity', 1,
            'unit_price', i.subtotal,
            'total', i.subtotal))
      FROM subscriptions AS s
      WHERE s.id = i.subscription_id`);
    await db.query(`
      ALTER TABLE subscription_invoices
        ALTER COLUMN lines SET NOT NULL,
        ADD CONSTRAINT subscription_invoices_lines_array
          CHECK (jsonb_typeof(lines) = 'array')`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE subscription_invoices
        DROP COLUMN lines,
        DROP COLUMN tax_rate,
        DROP COLUMN tax_name`);
  }
}
