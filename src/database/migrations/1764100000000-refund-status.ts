import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One refund rule for orders and subscription invoices, within the spec's
 * statuses (orders: pending, failed, paid, refunded; invoices: pending,
 * paid, void, refunded). A partial refund keeps a record `paid`, with
 * `refunded_at` null, and only raises `refunded_amount`; `refunded` (with
 * `refunded_at`) is the whole total given back. Rows stored as
 * `partial_refund` become `paid`, and invoices lose the `refunded_at` their
 * partial refunds set (orders never set it for one). The CHECK constraints
 * then refuse the old status, and a new one keeps `refunded_at` to fully
 * refunded rows.
 *
 * `down` restores the old constraints and statuses (before this migration
 * a paid row with a refunded amount was always `partial_refund`); the
 * invoices' dropped `refunded_at` of partial refunds cannot come back.
 */
export class RefundStatus1764100000000 implements MigrationInterface {
  name = 'RefundStatus1764100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `UPDATE orders SET status = 'paid' WHERE status = 'partial_refund'`,
    );
    await db.query(
      `UPDATE subscription_invoices SET status = 'paid', refunded_at = NULL
        WHERE status = 'partial_refund'`,
    );
    await db.query(`
      ALTER TABLE orders
        DROP CONSTRAINT orders_status_check,
        ADD CONSTRAINT orders_status_check
          CHECK (status IN ('pending', 'failed', 'paid', 'refunded')),
        ADD CONSTRAINT orders_refunded_at_check
          CHECK ((refunded_at IS NOT NULL) = (status = 'refunded'))`);
    await db.query(`
      ALTER TABLE subscription_invoices
        DROP CONSTRAINT subscription_invoices_status_check,
        ADD CONSTRAINT subscription_invoices_status_check
          CHECK (status IN ('pending', 'paid', 'void', 'refunded')),
        ADD CONSTRAINT subscription_invoices_refunded_at_check
          CHECK ((refunded_at IS NOT NULL) = (status = 'refunded'))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE subscription_invoices
        DROP CONSTRAINT subscription_invoices_refunded_at_check,
        DROP CONSTRAINT subscription_invoices_status_check,
        ADD CONSTRAINT subscription_invoices_status_check
          CHECK (status IN ('pending', 'paid', 'void', 'refunded', 'partial_refund'))`);
    await db.query(`
      ALTER TABLE orders
        DROP CONSTRAINT orders_refunded_at_check,
        DROP CONSTRAINT orders_status_check,
        ADD CONSTRAINT orders_status_check
          CHECK (status IN ('pending', 'failed', 'paid', 'refunded', 'partial_refund'))`);
    await db.query(
      `UPDATE subscription_invoices SET status = 'partial_refund'
        WHERE status = 'paid' AND refunded_amount > 0`,
    );
    await db.query(
      `UPDATE orders SET status = 'partial_refund'
        WHERE status = 'paid' AND refunded_amount > 0`,
    );
  }
}
