import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The bill-to details a merchant passed to generate-invoice (a buyer's name,
 * address, notes), kept server-side so that the `download_invoice` link
 * carries only an opaque `token` and its signature: links end up in request
 * logs, proxy and CDN logs, browser histories and e-mails.
 *
 * A row belongs to a store and a mode (the record's), like everything else a
 * key can see. One row per distinct set of details per store and mode:
 * `digest` is the SHA-256 of the canonical fields, and the unique constraint
 * on it makes repeated and concurrent identical requests share one row (and
 * one link) instead of growing the table. Rows are never updated; they go
 * with their store.
 */
export class InvoiceBillTo1764150000000 implements MigrationInterface {
  name = 'InvoiceBillTo1764150000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE invoice_bill_to (
        id serial PRIMARY KEY,
        token text NOT NULL UNIQUE CHECK (token ~ '^[A-Za-z0-9_-]{22}$'),
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        digest text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
        name text,
        address text,
        city text,
        state text,
        zip_code text,
        country text,
        notes text,
        locale text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT invoice_bill_to_details_key UNIQUE (store_id, test_mode, digest),
        -- An invoice without details needs no row (its link has no token).
        CONSTRAINT invoice_bill_to_not_empty CHECK (
          num_nonnulls(name, address, city, state, zip_code, country, notes, locale) > 0
        )
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE invoice_bill_to`);
  }
}
