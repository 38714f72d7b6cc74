import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Products, variants, prices and files. Variants, prices and files carry their
 * store's id as well, so every list is scoped by (store_id, test_mode) through
 * one index without joining up to the product.
 */
export class Catalog1763800000000 implements MigrationInterface {
  name = 'Catalog1763800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE products (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        name text NOT NULL,
        slug text NOT NULL,
        description text NOT NULL DEFAULT '',
        status text NOT NULL CHECK (status IN ('draft', 'published')),
        pay_what_you_want boolean NOT NULL DEFAULT false,
        thumb_url text,
        large_thumb_url text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE UNIQUE INDEX products_store_slug_key ON products (store_id, test_mode, slug)`,
    );
    // The products list: a store's products in one mode by name, id as tie-breaker.
    await db.query(
      `CREATE INDEX products_store_name_idx ON products (store_id, test_mode, name, id)`,
    );

    await db.query(`
      CREATE TABLE variants (
        id serial PRIMARY KEY,
        uuid uuid NOT NULL,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        product_id integer NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        name text NOT NULL,
        slug text NOT NULL,
        description text NOT NULL DEFAULT '',
        links jsonb NOT NULL DEFAULT '[]',
        has_license_keys boolean NOT NULL DEFAULT false,
        license_activation_limit integer NOT NULL DEFAULT 5
          CHECK (license_activation_limit >= 0),
        is_license_limit_unlimited boolean NOT NULL DEFAULT false,
        license_length_value integer NOT NULL DEFAULT 1
          CHECK (license_length_value >= 1),
        license_length_unit text NOT NULL DEFAULT 'years'
          CHECK (license_length_unit IN ('days', 'months', 'years')),
        is_license_length_unlimited boolean NOT NULL DEFAULT true,
        sort integer NOT NULL DEFAULT 0,
        status text NOT NULL CHECK (status IN ('pending', 'draft', 'published')),
        current_price_id integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX variants_uuid_key ON variants (uuid)`);
    await db.query(
      `CREATE UNIQUE INDEX variants_product_slug_key ON variants (product_id, slug)`,
    );
    // The variants list (ordered by sort) filtered by product, by store, or by store and status.
    await db.query(
      `CREATE INDEX variants_product_sort_idx ON variants (product_id, test_mode, sort, id)`,
    );
    await db.query(
      `CREATE INDEX variants_store_sort_idx ON variants (store_id, test_mode, sort, id)`,
    );
    await db.query(
      `CREATE INDEX variants_store_status_sort_idx ON variants (store_id, test_mode, status, sort, id)`,
    );

    await db.query(`
      CREATE TABLE prices (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        variant_id integer NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        category text NOT NULL
          CHECK (category IN ('one_time', 'subscription', 'lead_magnet', 'pwyw')),
        scheme text NOT NULL
          CHECK (scheme IN ('standard', 'package', 'graduated', 'volume')),
        usage_aggregation text
          CHECK (usage_aggregation IN ('sum', 'last_during_period', 'last_ever', 'max')),
        unit_price integer CHECK (unit_price >= 0),
        unit_price_decimal text,
        setup_fee_enabled boolean,
        setup_fee integer CHECK (setup_fee >= 0),
        package_size integer NOT NULL DEFAULT 1 CHECK (package_size >= 1),
        tiers jsonb,
        renewal_interval_unit text
          CHECK (renewal_interval_unit IN ('day', 'week', 'month', 'year')),
        renewal_interval_quantity integer CHECK (renewal_interval_quantity >= 1),
        trial_interval_unit text
          CHECK (trial_interval_unit IN ('day', 'week', 'month', 'year')),
        trial_interval_quantity integer CHECK (trial_interval_quantity >= 1),
        min_price integer CHECK (min_price >= 0),
        suggested_price integer CHECK (suggested_price >= 0),
        tax_code text NOT NULL CHECK (tax_code IN ('eservice', 'ebook', 'saas')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The prices list, newest first, by variant or by store.
    await db.query(
      `CREATE INDEX prices_variant_created_idx ON prices (variant_id, test_mode, created_at, id)`,
    );
    await db.query(
      `CREATE INDEX prices_store_created_idx ON prices (store_id, test_mode, created_at, id)`,
    );
    // Prices are immutable; the variant points at its newest one.
    await db.query(`
      ALTER TABLE variants ADD CONSTRAINT variants_current_price_fkey
        FOREIGN KEY (current_price_id) REFERENCES prices (id) ON DELETE SET NULL`);

    await db.query(`
      CREATE TABLE files (
        id serial PRIMARY KEY,
        identifier uuid NOT NULL,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        variant_id integer NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        name text NOT NULL,
        extension text NOT NULL,
        size integer NOT NULL CHECK (size >= 0),
        content_type text NOT NULL,
        version text NOT NULL DEFAULT '',
        sort integer NOT NULL DEFAULT 0,
        status text NOT NULL CHECK (status IN ('draft', 'published')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE UNIQUE INDEX files_identifier_key ON files (identifier)`,
    );
    await db.query(
      `CREATE INDEX files_variant_sort_idx ON files (variant_id, test_mode, sort, id)`,
    );
    await db.query(
      `CREATE INDEX files_store_sort_idx ON files (store_id, test_mode, sort, id)`,
    );
    // The bytes live apart from the metadata so list reads never touch them;
    // in the database, every API replica can serve every download.
    await db.query(`
      CREATE TABLE file_contents (
        file_id integer PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
        content bytea NOT NULL
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE file_contents`);
    await db.query(`DROP TABLE files`);
    await db.query(
      `ALTER TABLE variants DROP CONSTRAINT variants_current_price_fkey`,
    );
    await db.query(`DROP TABLE prices`);
    await db.query(`DROP TABLE variants`);
    await db.query(`DROP TABLE products`);
  }
}
