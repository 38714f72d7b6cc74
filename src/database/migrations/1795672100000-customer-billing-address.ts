import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A customer's billing address beyond city, region and country (extension
 * attributes `address`, `zip` and `tax_number`), set over the API or from the
 * customer portal; a change re-decides the tax of the customer's renewing
 * subscriptions.
 */
export class CustomerBillingAddress1795672100000 implements MigrationInterface {
  name = 'CustomerBillingAddress1795672100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE customers
         ADD COLUMN address text,
         ADD COLUMN zip text,
         ADD COLUMN tax_number text`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE customers
         DROP COLUMN tax_number,
         DROP COLUMN zip,
         DROP COLUMN address`,
    );
  }
}
