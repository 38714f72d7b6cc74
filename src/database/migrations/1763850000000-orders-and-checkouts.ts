import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders, order items, checkouts, discounts and redemptions. Every list is
 * scoped by (store_id, test_mode), so each table carries both and each list
 * has an index of filter + mode + order + id.
 */
export class OrdersAndCheckouts1763850000000 implements MigrationInterface {
  name = 'OrdersAndCheckouts1763850000000';

  async up(db: QueryRunner): Promise<void> {
    // One row per store; `UPDATE … RETURNING` under its row lock hands out
    // gap-free order numbers, and a rolled-back purchase gives its number back.
    await db.query(`
      CREATE TABLE store_order_counters (
        store_id integer PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
        last_order_number integer NOT NULL
      )`);

    await db.query(`
      CREATE TABLE orders (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        customer_id integer NOT NULL REFERENCES customers (id),
        identifier uuid NOT NULL,
        order_number integer NOT NULL,
        test_mode boolean NOT NULL,
        user_name text NOT NULL,
        user_email text NOT NULL,
        currency char(3) NOT NULL,
        currency_rate numeric(20, 10) NOT NULL,
        tax_name text,
        tax_rate numeric(7, 4) NOT NULL DEFAULT 0,
        tax_inclusive boolean NOT NULL,
        status text NOT NULL
          CHECK (status IN ('pending', 'failed', 'paid', 'refunded', 'partial_refund')),
        refunded_at timestamptz,
        subtotal integer NOT NULL CHECK (subtotal >= 0),
        discount_total integer NOT NULL CHECK (discount_total >= 0),
        tax integer NOT NULL CHECK (tax >= 0),
        setup_fee integer NOT NULL CHECK (setup_fee >= 0),
        total integer NOT NULL CHECK (total >= 0),
        refunded_amount integer NOT NULL DEFAULT 0
          CHECK (refunded_amount >= 0 AND refunded_amount <= total),
        subtotal_usd integer NOT NULL,
        discount_total_usd integer NOT NULL,
        tax_usd integer NOT NULL,
        setup_fee_usd integer NOT NULL,
        total_usd integer NOT NULL,
        refunded_amount_usd integer NOT NULL DEFAULT 0,
        billing_country char(2),
        billing_zip text,
        tax_number text,
        checkout_id uuid,
        custom_data jsonb,
        payment_reference text,
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE UNIQUE INDEX orders_identifier_key ON orders (identifier)`,
    );
    await db.query(
      `CREATE UNIQUE INDEX orders_store_number_key ON orders (store_id, order_number)`,
    );
    // The orders list (newest first) by store, by e-mail, and the store's sales figures.
    await db.query(
      `CREATE INDEX orders_store_created_idx ON orders (store_id, test_mode, created_at, id)`,
    );
    await db.query(
      `CREATE INDEX orders_email_created_idx ON orders (user_email, test_mode, created_at, id)`,
    );
    await db.query(
      `CREATE INDEX orders_customer_idx ON orders (customer_id, test_mode, status)`,
    );

    await db.query(`
      CREATE TABLE order_items (
        id serial PRIMARY KEY,
        order_id integer NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        product_id integer NOT NULL REFERENCES products (id),
        variant_id integer NOT NULL REFERENCES variants (id),
        price_id integer NOT NULL REFERENCES prices (id),
        test_mode boolean NOT NULL,
        product_name text NOT NULL,
        variant_name text NOT NULL,
        price integer NOT NULL CHECK (price >= 0),
        quantity integer NOT NULL CHECK (quantity >= 1),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The order-items list is ordered by id, filtered by order, product or variant.
    await db.query(
      `CREATE INDEX order_items_order_idx ON order_items (order_id, id)`,
    );
    await db.query(
      `CREATE INDEX order_items_store_idx ON order_items (store_id, test_mode, id)`,
    );
    await db.query(
      `CREATE INDEX order_items_product_idx ON order_items (product_id, test_mode, id)`,
    );
    await db.query(
      `CREATE INDEX order_items_variant_idx ON order_items (variant_id, test_mode, id)`,
    );

    await db.query(`
      CREATE TABLE checkouts (
        id uuid PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        variant_id integer NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        custom_price integer CHECK (custom_price >= 0),
        product_options jsonb NOT NULL,
        checkout_options jsonb NOT NULL,
        checkout_data jsonb NOT NULL,
        expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE INDEX checkouts_store_created_idx ON checkouts (store_id, test_mode, created_at, id)`,
    );
    await db.query(
      `CREATE INDEX checkouts_variant_created_idx ON checkouts (variant_id, test_mode, created_at, id)`,
    );

    await db.query(`
      CREATE TABLE discounts (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        name text NOT NULL,
        code text NOT NULL
          CHECK (code ~ '^[A-Z0-9]+$' AND length(code) BETWEEN 3 AND 256),
        amount integer NOT NULL CHECK (amount >= 0),
        amount_type text NOT NULL CHECK (amount_type IN ('percent', 'fixed')),
        is_limited_to_products boolean NOT NULL DEFAULT false,
        is_limited_redemptions boolean NOT NULL DEFAULT false,
        max_redemptions integer NOT NULL DEFAULT 0 CHECK (max_redemptions >= 0),
        redemptions_count integer NOT NULL DEFAULT 0 CHECK (redemptions_count >= 0),
        starts_at timestamptz,
        expires_at timestamptz,
        duration text NOT NULL DEFAULT 'once'
          CHECK (duration IN ('once', 'repeating', 'forever')),
        duration_in_months integer NOT NULL DEFAULT 1 CHECK (duration_in_months >= 1),
        status text NOT NULL CHECK (status IN ('draft', 'published')),
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Codes are unique per store and mode among discounts not deleted.
    await db.query(
      `CREATE UNIQUE INDEX discounts_store_code_key ON discounts (store_id, test_mode, code) WHERE deleted_at IS NULL`,
    );
    await db.query(
      `CREATE INDEX discounts_store_created_idx ON discounts (store_id, test_mode, created_at, id) WHERE deleted_at IS NULL`,
    );
    await db.query(`
      CREATE TABLE discount_variants (
        discount_id integer NOT NULL REFERENCES discounts (id) ON DELETE CASCADE,
        variant_id integer NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
        PRIMARY KEY (discount_id, variant_id)
      )`);

    await db.query(`
      CREATE TABLE discount_redemptions (
        id serial PRIMARY KEY,
        discount_id integer NOT NULL REFERENCES discounts (id),
        order_id integer NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        discount_name text NOT NULL,
        discount_code text NOT NULL,
        discount_amount integer NOT NULL,
        discount_amount_type text NOT NULL,
        amount integer NOT NULL CHECK (amount >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE INDEX discount_redemptions_store_idx ON discount_redemptions (store_id, test_mode, created_at, id)`,
    );
    await db.query(
      `CREATE INDEX discount_redemptions_discount_idx ON discount_redemptions (discount_id, test_mode, created_at, id)`,
    );
    await db.query(
      `CREATE INDEX discount_redemptions_order_idx ON discount_redemptions (order_id, test_mode, created_at, id)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE discount_redemptions`);
    await db.query(`DROP TABLE discount_variants`);
    await db.query(`DROP TABLE discounts`);
    await db.query(`DROP TABLE checkouts`);
    await db.query(`DROP TABLE order_items`);
    await db.query(`DROP TABLE orders`);
    await db.query(`DROP TABLE store_order_counters`);
  }
}
