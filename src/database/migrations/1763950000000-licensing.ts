import { MigrationInterface, QueryRunner } from 'typeorm';

export class Licensing1763950000000 implements MigrationInterface {
  name = 'Licensing1763950000000';

  async up(db: QueryRunner): Promise<void> {
    // Names and e-mail are snapshots taken at purchase, so the License API
    // answers from this one row without reading the catalog or customers.
    await db.query(`
      CREATE TABLE license_keys (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        customer_id integer NOT NULL REFERENCES customers (id),
        order_id integer NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
        order_item_id integer NOT NULL REFERENCES order_items (id) ON DELETE CASCADE,
        product_id integer NOT NULL REFERENCES products (id),
        variant_id integer NOT NULL REFERENCES variants (id),
        product_name text NOT NULL,
        variant_name text NOT NULL,
        user_name text NOT NULL,
        user_email text NOT NULL,
        key text NOT NULL,
        activation_limit integer CHECK (activation_limit >= 0),
        instances_count integer NOT NULL DEFAULT 0 CHECK (instances_count >= 0),
        disabled boolean NOT NULL DEFAULT false,
        expires_at timestamptz,
        test_mode boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE UNIQUE INDEX license_keys_key_key ON license_keys (key)`,
    );
    // Lists are ordered by id; each filter has an index ending in id.
    await db.query(
      `CREATE INDEX license_keys_store_mode_id_idx ON license_keys (store_id, test_mode, id)`,
    );
    await db.query(
      `CREATE INDEX license_keys_order_id_idx ON license_keys (order_id, test_mode, id)`,
    );
    await db.query(
      `CREATE INDEX license_keys_order_item_id_idx ON license_keys (order_item_id, test_mode, id)`,
    );
    await db.query(
      `CREATE INDEX license_keys_product_id_idx ON license_keys (product_id, test_mode, id)`,
    );
    await db.query(
      `CREATE INDEX license_keys_customer_id_idx ON license_keys (customer_id, test_mode, id)`,
    );

    // store_id and test_mode repeat the key's (both immutable) so that
    // instance lists are scoped and ordered from one index.
    await db.query(`
      CREATE TABLE license_key_instances (
        id serial PRIMARY KEY,
        license_key_id integer NOT NULL REFERENCES license_keys (id) ON DELETE CASCADE,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        identifier uuid NOT NULL,
        name text NOT NULL,
        test_mode boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE UNIQUE INDEX license_key_instances_identifier_key ON license_key_instances (identifier)`,
    );
    await db.query(
      `CREATE INDEX license_key_instances_key_id_idx ON license_key_instances (license_key_id, test_mode, id)`,
    );
    await db.query(
      `CREATE INDEX license_key_instances_store_mode_id_idx ON license_key_instances (store_id, test_mode, id)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE license_key_instances`);
    await db.query(`DROP TABLE license_keys`);
  }
}
