import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The portal's sign-in page finds a buyer's customer records in every
 * store by address; the unique index leads with the store, so it cannot
 * serve that lookup.
 */
export class CustomerEmailIndex1795640100000 implements MigrationInterface {
  name = 'CustomerEmailIndex1795640100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX customers_email_idx ON customers (lower(email))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX customers_email_idx`);
  }
}
