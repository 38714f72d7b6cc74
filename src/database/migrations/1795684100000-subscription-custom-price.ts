import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A subscription bought through a checkout with `custom_price` renews at
 * that price, as Lemon Squeezy does: the item keeps it (cents a unit) until
 * a plan change. Existing subscriptions take it from their checkout.
 */
export class SubscriptionCustomPrice1795684100000 implements MigrationInterface {
  name = 'SubscriptionCustomPrice1795684100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE subscription_items
        ADD COLUMN custom_unit_price integer CHECK (custom_unit_price >= 0)`);
    // Only items still on the variant they were bought at (no plan change since).
    await db.query(`
      UPDATE subscription_items i SET custom_unit_price = c.custom_price
        FROM subscriptions s
        JOIN orders o ON o.id = s.order_id
        JOIN order_items oi ON oi.id = s.order_item_id
        JOIN checkouts c ON c.id = o.checkout_id
       WHERE i.subscription_id = s.id AND NOT i.is_usage_based
         AND c.custom_price IS NOT NULL AND i.price_id = oi.price_id`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE subscription_items DROP COLUMN custom_unit_price`,
    );
  }
}
