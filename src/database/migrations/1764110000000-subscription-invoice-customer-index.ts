import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscription invoices by customer, as the other filters have them: the
 * list's `filter[customer_id]`, and the customer's revenue, which sums their
 * invoices on every customer read (without it, a scan of every invoice).
 */
export class SubscriptionInvoiceCustomerIndex1764110000000 implements MigrationInterface {
  name = 'SubscriptionInvoiceCustomerIndex1764110000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX subscription_invoices_customer_id_created_idx
         ON subscription_invoices (customer_id, test_mode, created_at, id)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX subscription_invoices_customer_id_created_idx`);
  }
}
