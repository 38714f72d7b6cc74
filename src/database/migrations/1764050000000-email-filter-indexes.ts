import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `filter[user_email]` on orders and subscriptions matches the whole address
 * in any case, as a purchase finds its customer (customers are unique on
 * `lower(email)`), so the indexes behind those filters are on
 * `lower(user_email)`.
 */
export class EmailFilterIndexes1764050000000 implements MigrationInterface {
  name = 'EmailFilterIndexes1764050000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX orders_email_created_idx`);
    await db.query(
      `CREATE INDEX orders_email_created_idx
         ON orders (lower(user_email), test_mode, created_at, id)`,
    );
    await db.query(`DROP INDEX subscriptions_user_email_created_idx`);
    await db.query(
      `CREATE INDEX subscriptions_user_email_created_idx
         ON subscriptions (lower(user_email), test_mode, created_at, id)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX orders_email_created_idx`);
    await db.query(
      `CREATE INDEX orders_email_created_idx ON orders (user_email, test_mode, created_at, id)`,
    );
    await db.query(`DROP INDEX subscriptions_user_email_created_idx`);
    await db.query(
      `CREATE INDEX subscriptions_user_email_created_idx ON subscriptions (user_email, test_mode, created_at, id)`,
    );
  }
}
