import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriptions, their items, usage records and per-period usage totals, and
 * subscription invoices. Every table carries store_id and test_mode so each
 * list is one index range; each list index ends in (created_at, id).
 */
export class Billing1763960000000 implements MigrationInterface {
  name = 'Billing1763960000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE subscriptions (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        customer_id integer NOT NULL REFERENCES customers (id),
        order_id integer NOT NULL REFERENCES orders (id),
        order_item_id integer NOT NULL REFERENCES order_items (id),
        product_id integer NOT NULL REFERENCES products (id),
        variant_id integer NOT NULL REFERENCES variants (id),
        product_name text NOT NULL,
        variant_name text NOT NULL,
        user_name text NOT NULL,
        user_email text NOT NULL,
        status text NOT NULL CHECK (status IN
          ('on_trial', 'active', 'paused', 'past_due', 'unpaid', 'cancelled', 'expired')),
        card_brand text,
        card_last_four text,
        -- The gateway's reusable reference to the payment method; never rendered.
        payment_method text,
        pause_mode text CHECK (pause_mode IN ('void', 'free')),
        pause_resumes_at timestamptz,
        cancelled boolean NOT NULL DEFAULT false,
        trial_ends_at timestamptz,
        billing_anchor smallint NOT NULL CHECK (billing_anchor BETWEEN 1 AND 31),
        interval_unit text NOT NULL CHECK (interval_unit IN ('day', 'week', 'month', 'year')),
        interval_quantity integer NOT NULL CHECK (interval_quantity >= 1),
        current_period_start timestamptz NOT NULL,
        renews_at timestamptz NOT NULL,
        ends_at timestamptz,
        -- When the renewal sweep next has something to do (renew, retry,
        -- unpause, expire); null when nothing is scheduled.
        next_action_at timestamptz,
        -- Failed charges of the open renewal invoice (dunning).
        failed_attempts integer NOT NULL DEFAULT 0,
        -- Signed cents owed (+) or credited (−) by prorations, settled at renewal.
        pending_proration integer NOT NULL DEFAULT 0,
        currency char(3) NOT NULL,
        tax_name text,
        tax_rate numeric(7, 4) NOT NULL DEFAULT 0,
        tax_inclusive boolean NOT NULL DEFAULT false,
        -- A repeating or forever discount of the purchase, applied to renewals
        -- until discount_ends_at (null: forever).
        discount_amount integer CHECK (discount_amount >= 0),
        discount_amount_type text CHECK (discount_amount_type IN ('percent', 'fixed')),
        discount_ends_at timestamptz,
        custom_data jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const filter of [
      'store_id',
      'order_id',
      'order_item_id',
      'product_id',
      'variant_id',
      'customer_id',
      'user_email',
    ]) {
      await db.query(
        `CREATE INDEX subscriptions_${filter}_created_idx ON subscriptions (${filter}, test_mode, created_at, id)`,
      );
    }
    await db.query(
      `CREATE INDEX subscriptions_store_status_created_idx ON subscriptions (store_id, test_mode, status, created_at, id)`,
    );
    // The renewal sweep's queue: due subscriptions, oldest first.
    await db.query(
      `CREATE INDEX subscriptions_next_action_idx ON subscriptions (next_action_at, id) WHERE next_action_at IS NOT NULL`,
    );

    await db.query(`
      CREATE TABLE subscription_items (
        id serial PRIMARY KEY,
        subscription_id integer NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        price_id integer NOT NULL REFERENCES prices (id),
        quantity integer NOT NULL CHECK (quantity >= 0),
        is_usage_based boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const filter of ['store_id', 'subscription_id', 'price_id']) {
      await db.query(
        `CREATE INDEX subscription_items_${filter}_created_idx ON subscription_items (${filter}, test_mode, created_at, id)`,
      );
    }

    await db.query(`
      CREATE TABLE usage_records (
        id serial PRIMARY KEY,
        subscription_item_id integer NOT NULL REFERENCES subscription_items (id) ON DELETE CASCADE,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        quantity integer NOT NULL CHECK (quantity >= 1),
        action text NOT NULL CHECK (action IN ('increment', 'set')),
        period_start timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const filter of ['store_id', 'subscription_item_id']) {
      await db.query(
        `CREATE INDEX usage_records_${filter}_created_idx ON usage_records (${filter}, test_mode, created_at, id)`,
      );
    }

    // One row per item and period, updated atomically by every usage record:
    // totals stay exact under concurrent posts and reads are one row.
    await db.query(`
      CREATE TABLE subscription_usage_totals (
        subscription_item_id integer NOT NULL REFERENCES subscription_items (id) ON DELETE CASCADE,
        period_start timestamptz NOT NULL,
        total bigint NOT NULL,
        peak bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (subscription_item_id, period_start)
      )`);

    await db.query(`
      CREATE TABLE subscription_invoices (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        subscription_id integer NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
        customer_id integer NOT NULL REFERENCES customers (id),
        user_name text NOT NULL,
        user_email text NOT NULL,
        billing_reason text NOT NULL CHECK (billing_reason IN ('initial', 'renewal', 'updated')),
        card_brand text,
        card_last_four text,
        currency char(3) NOT NULL,
        currency_rate numeric(20, 10) NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'paid', 'void', 'refunded', 'partial_refund')),
        refunded_at timestamptz,
        subtotal integer NOT NULL CHECK (subtotal >= 0),
        discount_total integer NOT NULL CHECK (discount_total >= 0),
        tax integer NOT NULL CHECK (tax >= 0),
        tax_inclusive boolean NOT NULL,
        total integer NOT NULL CHECK (total >= 0),
        refunded_amount integer NOT NULL DEFAULT 0
          CHECK (refunded_amount >= 0 AND refunded_amount <= total),
        subtotal_usd integer NOT NULL,
        discount_total_usd integer NOT NULL,
        tax_usd integer NOT NULL,
        total_usd integer NOT NULL,
        refunded_amount_usd integer NOT NULL DEFAULT 0,
        period_start timestamptz NOT NULL,
        period_end timestamptz NOT NULL,
        payment_reference text,
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // A period is invoiced for renewal once, whatever the number of sweeps.
    await db.query(
      `CREATE UNIQUE INDEX subscription_invoices_renewal_key ON subscription_invoices (subscription_id, period_start) WHERE billing_reason = 'renewal'`,
    );
    for (const filter of ['store_id', 'subscription_id']) {
      await db.query(
        `CREATE INDEX subscription_invoices_${filter}_created_idx ON subscription_invoices (${filter}, test_mode, created_at, id)`,
      );
    }
    await db.query(
      `CREATE INDEX subscription_invoices_store_status_created_idx ON subscription_invoices (store_id, test_mode, status, created_at, id)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE subscription_invoices`);
    await db.query(`DROP TABLE subscription_usage_totals`);
    await db.query(`DROP TABLE usage_records`);
    await db.query(`DROP TABLE subscription_items`);
    await db.query(`DROP TABLE subscriptions`);
  }
}
