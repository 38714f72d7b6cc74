import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dunning on subscription invoices: how many times the invoice was charged
 * (the renewal, then each retry or recovery) and when the renewal sweep
 * charges it again (null when paid, exhausted or while a charge is in
 * flight). Extension attributes `attempt_count` and `next_retry_at`.
 */
export class InvoiceDunning1795640000000 implements MigrationInterface {
  name = 'InvoiceDunning1795640000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE subscription_invoices
        ADD COLUMN attempt_count integer NOT NULL DEFAULT 0,
        ADD COLUMN next_retry_at timestamptz`);
    // Invoices that were charged before this column existed: once at least.
    await db.query(`
      UPDATE subscription_invoices SET attempt_count = 1
       WHERE status <> 'pending' OR failure_reason IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE subscription_invoices
        DROP COLUMN attempt_count,
        DROP COLUMN next_retry_at`);
  }
}
