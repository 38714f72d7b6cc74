import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tax engine's records. Orders keep the evidence of where the buyer is
 * and why the rate was chosen (the region read from the state or postcode,
 * the tax number's check, the rate table's version) and the reverse-charge
 * note; subscriptions and their invoices keep the note so renewal invoice PDFs
 * show it. Stores get
 * their tax settings: inclusive prices (null: TAX_INCLUSIVE) and the
 * countries they are registered in (null: everywhere the rules require).
 */
export class TaxEvidence1795640050000 implements MigrationInterface {
  name = 'TaxEvidence1795640050000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE orders
        ADD COLUMN billing_region text,
        ADD COLUMN tax_number_check text
          CHECK (tax_number_check IN ('valid', 'invalid', 'valid_offline', 'not_checked')),
        ADD COLUMN tax_rate_source text,
        ADD COLUMN tax_note text`);
    await db.query(`ALTER TABLE subscriptions ADD COLUMN tax_note text`);
    await db.query(
      `ALTER TABLE subscription_invoices ADD COLUMN tax_note text`,
    );
    await db.query(`
      ALTER TABLE stores
        ADD COLUMN tax_inclusive boolean,
        ADD COLUMN tax_registrations text[]`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE stores DROP COLUMN tax_registrations, DROP COLUMN tax_inclusive`,
    );
    await db.query(`ALTER TABLE subscription_invoices DROP COLUMN tax_note`);
    await db.query(`ALTER TABLE subscriptions DROP COLUMN tax_note`);
    await db.query(`
      ALTER TABLE orders
        DROP COLUMN tax_note,
        DROP COLUMN tax_rate_source,
        DROP COLUMN tax_number_check,
        DROP COLUMN billing_region`);
  }
}
