import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1763900000000 implements MigrationInterface {
  name = 'Webhooks1763900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhooks (
        id serial PRIMARY KEY,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        -- AES-256-GCM under a key derived from APP_KEY: signing needs the plain secret.
        secret_encrypted text NOT NULL,
        test_mode boolean NOT NULL,
        last_sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The list: by store and mode, created_at ascending, id as tie-breaker;
    // the relay also finds a store's webhooks of one mode through it.
    await db.query(
      `CREATE INDEX webhooks_store_mode_created_idx ON webhooks (store_id, test_mode, created_at, id)`,
    );

    // The outbox: written in the same transaction as the change it reports.
    // json (not jsonb) keeps the attribute order of the rendered resource.
    await db.query(`
      CREATE TABLE webhook_events (
        id bigserial PRIMARY KEY,
        name text NOT NULL,
        store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        test_mode boolean NOT NULL,
        data json NOT NULL,
        custom_data json,
        created_at timestamptz NOT NULL DEFAULT now(),
        relayed_at timestamptz
      )`);
    await db.query(
      `CREATE INDEX webhook_events_unrelayed_idx ON webhook_events (id) WHERE relayed_at IS NULL`,
    );
    // Retention: the sweeper deletes events (and their deliveries) by age.
    await db.query(
      `CREATE INDEX webhook_events_created_idx ON webhook_events (created_at)`,
    );

    await db.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        event_id bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
        webhook_id integer NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'succeeded', 'failed')),
        -- Attempts finished so far; attempt n+1 is the next one.
        attempts integer NOT NULL DEFAULT 0,
        -- attempts at the start of the current retry schedule (a resend restarts it).
        schedule_start integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        -- A worker is sending attempts+1 until then; afterwards the claim is stale.
        claimed_until timestamptz,
        last_response_code integer,
        last_attempt_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_event_webhook_key UNIQUE (event_id, webhook_id)
      )`);
    await db.query(
      `CREATE INDEX webhook_deliveries_webhook_created_idx ON webhook_deliveries (webhook_id, created_at, id)`,
    );
    // The sweeper's scan: due pending deliveries only.
    await db.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`,
    );

    await db.query(`
      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
        response_code integer,
        error text,
        duration_ms integer NOT NULL,
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL,
        CONSTRAINT webhook_delivery_attempts_delivery_attempt_key UNIQUE (delivery_id, attempt)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_delivery_attempts`);
    await db.query(`DROP TABLE webhook_deliveries`);
    await db.query(`DROP TABLE webhook_events`);
    await db.query(`DROP TABLE webhooks`);
  }
}
