import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A usage record's optional client id (the `id` a member of a batch
 * `POST /v1/usage-records` carries): unique per store and mode, so a batch
 * sent again adds nothing twice.
 */
export class UsageRecordClientIds1795640200000 implements MigrationInterface {
  name = 'UsageRecordClientIds1795640200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE usage_records ADD COLUMN client_id text`);
    await db.query(
      `CREATE UNIQUE INDEX usage_records_client_id_key
         ON usage_records (store_id, test_mode, client_id)
         WHERE client_id IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX usage_records_client_id_key`);
    await db.query(`ALTER TABLE usage_records DROP COLUMN client_id`);
  }
}
