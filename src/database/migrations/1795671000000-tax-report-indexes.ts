import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tax reports subtract refunds in the period they were made, read from the
 * settled refund attempts of a store and mode by the time they settled
 * (`updated_at`). Without this index that is a scan of every payment
 * attempt; sales are read by the existing (store_id, test_mode, created_at)
 * indexes of orders and subscription invoices.
 */
export class TaxReportIndexes1795671000000 implements MigrationInterface {
  name = 'TaxReportIndexes1795671000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE INDEX payment_attempts_settled_refunds
        ON payment_attempts (store_id, test_mode, purpose, updated_at)
        WHERE kind = 'refund' AND status = 'succeeded'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX payment_attempts_settled_refunds`);
  }
}
