import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invoices a tax authority accepts:
 * - The store's legal identity (`legal_name`, `legal_address`, and
 *   `tax_numbers`: VAT/GST registration numbers by country), printed as the
 *   seller on receipts and invoices.
 * - A gap-free invoice number per store, mode and calendar year
 *   (`2026-000042`; `TEST-2026-000001` in test mode), drawn from
 *   store_invoice_counters under the counter row's lock in the transaction
 *   that makes the sale paid, so a rollback returns the number. Orders and
 *   subscription invoices share the sequence; a subscription's initial
 *   invoice is the same sale as its order and carries the order's number.
 * - Existing paid (or refunded) records are numbered here in creation
 *   order, per store, mode and year.
 */
export class SellerInvoices1795680000000 implements MigrationInterface {
  name = 'SellerInvoices1795680000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE stores
        ADD COLUMN legal_name text,
        ADD COLUMN legal_address jsonb,
        ADD COLUMN tax_numbers jsonb`);
    await db.query(`
      CREATE TABLE store_invoice_counters (
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        year integer NOT NULL,
        last_number bigint NOT NULL CHECK (last_number > 0),
        PRIMARY KEY (store_id, test_mode, year))`);
    await db.query(`ALTER TABLE orders ADD COLUMN invoice_number text`);
    await db.query(
      `ALTER TABLE subscription_invoices ADD COLUMN invoice_number text`,
    );
    await db.query(`
      CREATE UNIQUE INDEX orders_invoice_number
        ON orders (store_id, invoice_number) WHERE invoice_number IS NOT NULL`);
    await db.query(`
      CREATE UNIQUE INDEX subscription_invoices_invoice_number
        ON subscription_invoices (store_id, invoice_number)
        WHERE invoice_number IS NOT NULL AND billing_reason <> 'initial'`);
    await db.query(`
      CREATE TEMPORARY TABLE invoice_numbering AS
      SELECT kind, id, store_id, test_mode, year,
             row_number() OVER (PARTITION BY store_id, test_mode, year
                                ORDER BY created_at, kind, id) AS n
        FROM (SELECT 'order' AS kind, id, store_id, test_mode, created_at,
                     extract(year FROM created_at AT TIME ZONE 'UTC')::integer AS year
                FROM orders WHERE status IN ('paid', 'refunded')
              UNION ALL
              SELECT 'invoice', id, store_id, test_mode, created_at,
                     extract(year FROM created_at AT TIME ZONE 'UTC')::integer
                FROM subscription_invoices
               WHERE status IN ('paid', 'refunded')
                 AND billing_reason <> 'initial') AS issued`);
    const formatted = `CASE WHEN n.test_mode THEN 'TEST-' ELSE '' END || n.year || '-' ||
        lpad(n.n::text, greatest(6, length(n.n::text)), '0')`;
    await db.query(`
      UPDATE orders o SET invoice_number = ${formatted}
        FROM invoice_numbering n WHERE n.kind = 'order' AND n.id = o.id`);
    await db.query(`
      UPDATE subscription_invoices i SET invoice_number = ${formatted}
        FROM invoice_numbering n WHERE n.kind = 'invoice' AND n.id = i.id`);
    await db.query(`
      UPDATE subscription_invoices i SET invoice_number = o.invoice_number
        FROM subscriptions s JOIN orders o ON o.id = s.order_id
       WHERE i.billing_reason = 'initial' AND s.id = i.subscription_id
         AND i.status IN ('paid', 'refunded')`);
    await db.query(`
      INSERT INTO store_invoice_counters (store_id, test_mode, year, last_number)
      SELECT store_id, test_mode, year, max(n) FROM invoice_numbering
       GROUP BY store_id, test_mode, year`);
    await db.query(`DROP TABLE invoice_numbering`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX subscription_invoices_invoice_number`);
    await db.query(`DROP INDEX orders_invoice_number`);
    await db.query(
      `ALTER TABLE subscription_invoices DROP COLUMN invoice_number`,
    );
    await db.query(`ALTER TABLE orders DROP COLUMN invoice_number`);
    await db.query(`DROP TABLE store_invoice_counters`);
    await db.query(`
      ALTER TABLE stores
        DROP COLUMN legal_name,
        DROP COLUMN legal_address,
        DROP COLUMN tax_numbers`);
  }
}
