import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A variant's quantity limits (extension attributes `min_quantity` and
 * `max_quantity`): existing variants get the limits every purchase had,
 * 1 to 1000.
 */
export class VariantQuantityLimits1795672000000 implements MigrationInterface {
  name = 'VariantQuantityLimits1795672000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE variants
         ADD COLUMN min_quantity integer NOT NULL DEFAULT 1,
         ADD COLUMN max_quantity integer NOT NULL DEFAULT 1000,
         ADD CONSTRAINT variants_quantity_limits_check
           CHECK (min_quantity >= 1 AND max_quantity <= 10000 AND min_quantity <= max_quantity)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE variants
         DROP CONSTRAINT variants_quantity_limits_check,
         DROP COLUMN max_quantity,
         DROP COLUMN min_quantity`,
    );
  }
}
