import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * File bytes move out of PostgreSQL into the file storage (local disk or an
 * S3 bucket). A migration runs in a transaction with no access to storage,
 * so it only adds the columns: `storage_key` names the object once its bytes
 * are stored. Rows of `file_contents` are copied out after start-up by
 * `FileContentMover` (API and worker), each one stored first and then, in
 * one transaction, given its key and removed from `file_contents`: a crash
 * between the two stores the same bytes under the same key again on the next
 * start, so nothing is lost or duplicated. Downloads read `file_contents`
 * while a row is still there. `file_contents` is dropped by a later
 * release's migration, which refuses to run while rows remain.
 *
 * Also: `size` becomes bigint (uploads go to FILE_MAX_BYTES, 5 GiB by
 * default), `sha256` records the upload's checksum (null for files from
 * before, until the mover computes it), `deleted_at` marks a file that is
 * no longer offered; `variants.download_limit` caps downloads per order
 * item (null: unlimited), counted in `order_item_downloads`.
 */
export class FileStorage1795633475731 implements MigrationInterface {
  name = 'FileStorage1795633475731';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE files
        ADD COLUMN storage_key text,
        ADD COLUMN sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        ADD COLUMN deleted_at timestamptz,
        ALTER COLUMN size TYPE bigint`);
    await db.query(
      `ALTER TABLE variants ADD COLUMN download_limit integer CHECK (download_limit >= 1)`,
    );
    await db.query(`
      CREATE TABLE order_item_downloads (
        order_item_id integer PRIMARY KEY REFERENCES order_items (id) ON DELETE CASCADE,
        downloads integer NOT NULL CHECK (downloads >= 0),
        last_downloaded_at timestamptz NOT NULL
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE order_item_downloads`);
    await db.query(`ALTER TABLE variants DROP COLUMN download_limit`);
    await db.query(`
      ALTER TABLE files
        DROP COLUMN storage_key,
        DROP COLUMN sha256,
        DROP COLUMN deleted_at,
        ALTER COLUMN size TYPE integer`);
  }
}
