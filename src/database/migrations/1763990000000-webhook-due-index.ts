import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sweeper's index of due deliveries, keyed on `next_attempt_at IS NOT
 * NULL` instead of `status = 'pending'` (a delivery has a next attempt
 * exactly while it is pending; the constraint below keeps it so).
 *
 * The worker's claim looks deliveries up by id with `status = 'pending'` in
 * its filter. That filter matched the old index's predicate, and the
 * planner, finding that index small, scanned all of it for each id instead
 * of using the primary key: during a burst, with thousands of deliveries
 * pending and the dead entries of the sent ones not yet vacuumed, every
 * claim cost time linear in the backlog. No lookup by id implies the new
 * predicate, so they all use the primary key; the sweeper's
 * `next_attempt_at <= now()` does imply it.
 */
export class WebhookDueIndex1763990000000 implements MigrationInterface {
  name = 'WebhookDueIndex1763990000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE webhook_deliveries
        ADD CONSTRAINT webhook_deliveries_pending_has_next_attempt
          CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))`);
    await db.query(`DROP INDEX webhook_deliveries_due_idx`);
    await db.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id)
        WHERE next_attempt_at IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_due_idx`);
    await db.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id)
        WHERE status = 'pending'`,
    );
    await db.query(`
      ALTER TABLE webhook_deliveries
        DROP CONSTRAINT webhook_deliveries_pending_has_next_attempt`);
  }
}
