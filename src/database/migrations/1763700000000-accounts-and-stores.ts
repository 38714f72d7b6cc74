import { MigrationInterface, QueryRunner } from 'typeorm';

export class AccountsAndStores1763700000000 implements MigrationInterface {
  name = 'AccountsAndStores1763700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        name text NOT NULL,
        email text NOT NULL,
        color text NOT NULL DEFAULT '#898FA9',
        avatar_url text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE UNIQUE INDEX users_email_key ON users (lower(email))`,
    );

    await db.query(`
      CREATE TABLE api_keys (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        prefix text NOT NULL,
        key_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)`,
    );
    await db.query(`CREATE INDEX api_keys_user_id_idx ON api_keys (user_id)`);

    await db.query(`
      CREATE TABLE stores (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        slug text NOT NULL,
        domain text,
        avatar_url text,
        plan text NOT NULL DEFAULT 'fresh',
        country char(2) NOT NULL DEFAULT 'US',
        currency char(3) NOT NULL DEFAULT 'USD',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX stores_slug_key ON stores (slug)`);
    // Matches the stores list: a user's stores ordered by name, id as tie-breaker.
    await db.query(
      `CREATE INDEX stores_user_name_idx ON stores (user_id, name, id)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE stores`);
    await db.query(`DROP TABLE api_keys`);
    await db.query(`DROP TABLE users`);
  }
}
