import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, type QueryConfig } from 'pg';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';
import { runMigrations } from '../../src/database/migrate';

const run = promisify(execFile);

/**
 * The embedded database listens on a loopback port, which every local user
 * can reach: only a client with this start's password gets a session.
 */
describe('embedded database access', () => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;
  let url: URL;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zest-embedded-'));
    embedded = await EmbeddedPostgres.start(dataDir);
    url = new URL(embedded.url);
    await runMigrations(embedded.url);
  });

  afterAll(async () => {
    await embedded.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function foreignUrl(password: string | null) {
    const foreign = new URL(url);
    foreign.username = 'nobody';
    foreign.password = password ?? '';
    return foreign.toString();
  }

  async function psql(connection: string, sql: string) {
    try {
      const { stdout } = await run(
        'psql',
        ['-w', '-X', '-tA', '-d', connection, '-c', sql],
        { env: { ...process.env, PGPASSWORD: '', PGCONNECT_TIMEOUT: '5' } },
      );
      return { ok: true, output: stdout.trim() };
    } catch (error) {
      return {
        ok: false,
        output: String((error as { stderr: string }).stderr),
      };
    }
  }

  it('gives a session to the process that holds the password (pg and libpq)', async () => {
    const client = new Client({ connectionString: embedded.url });
    await client.connect();
    const { rows } = await client.query<{ count: string }>(
      'SELECT count(*) FROM api_keys',
    );
    expect(rows[0].count).toBe('0');
    await client.end();

    const viaPsql = await psql(embedded.url, 'SELECT count(*) FROM api_keys');
    expect(viaPsql).toEqual({ ok: true, output: '0' });
  });

  it('refuses psql with a wrong password or none, before any query runs', async () => {
    const wrong = await psql(foreignUrl('wrong'), 'SELECT * FROM api_keys');
    expect(wrong.ok).toBe(false);
    expect(wrong.output).toContain('password authentication failed');

    const none = await psql(foreignUrl(null), 'SELECT * FROM api_keys');
    expect(none.ok).toBe(false);
    expect(none.output).toMatch(
      /no password supplied|password authentication failed/,
    );

    // One wrong character is as good as none.
    const guessed = await psql(
      foreignUrl(url.password.slice(0, -1) + 'x'),
      'SELECT 1',
    );
    expect(guessed.ok).toBe(false);
  });

  it('refuses a pg client with a wrong password with SQLSTATE 28P01', async () => {
    const client = new Client({ connectionString: foreignUrl('wrong') });
    await expect(client.connect()).rejects.toMatchObject({ code: '28P01' });
  });

  it('answers nothing but an error to a raw client that skips authentication', async () => {
    const socket = connect(Number(url.port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (data) => received.push(data));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const startup = Buffer.alloc(8 + 'user\0postgres\0\0'.length);
    startup.writeInt32BE(startup.length, 0);
    startup.writeInt32BE(196608, 4);
    startup.write('user\0postgres\0\0', 8);
    const sql = 'SELECT key_hash FROM api_keys\0';
    const query = Buffer.alloc(5 + Buffer.byteLength(sql));
    query.write('Q', 0);
    query.writeInt32BE(4 + Buffer.byteLength(sql), 1);
    query.write(sql, 5);
    socket.write(Buffer.concat([startup, query]));
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const reply = Buffer.concat(received);
    // AuthenticationSASL (R, kind 10), then a FATAL 28P01 and the end.
    expect(reply[0]).toBe('R'.charCodeAt(0));
    expect(reply.readInt32BE(5)).toBe(10);
    const rest = reply.subarray(1 + reply.readInt32BE(1));
    expect(rest[0]).toBe('E'.charCodeAt(0));
    expect(rest.toString('latin1')).toContain('C28P01');
    expect(rest.toString('latin1')).not.toContain('key_hash');
    expect(rest.length).toBe(1 + rest.readInt32BE(1));
  });

  it('delivers each NOTIFY to the connections that LISTEN to its channel', async () => {
    const open = async () => {
      const client = new Client({ connectionString: embedded.url });
      await client.connect();
      const got: string[] = [];
      client.on('notification', (n) => got.push(`${n.channel}:${n.payload}`));
      return { client, got };
    };
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!done() && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const [a, b, c] = [await open(), await open(), await open()];
    const ended = new Set<Client>();
    try {
      // As BullMQ's workers subscribe (listen_jobs.sql), on a connection of their own.
      await a.client.query('-- wake-ups\nLISTEN bullmq_jobs;');
      await c.client.query('LISTEN "Other"');
      await b.client.query("SELECT pg_notify('bullmq_jobs', 'one')");
      await b.client.query('BEGIN');
      await b.client.query("NOTIFY bullmq_jobs, 'two'");
      await b.client.query('COMMIT');
      await until(() => a.got.length === 2);
      expect(a.got).toEqual(['bullmq_jobs:one', 'bullmq_jobs:two']);

      // One connection's UNLISTEN * ends its own subscriptions only.
      await c.client.query('UNLISTEN *');
      await b.client.query(
        "SELECT pg_notify('bullmq_jobs', 'three'), pg_notify('Other', 'unheard')",
      );
      await until(() => a.got.length === 3);
      // A statement sent with the extended protocol (Parse) subscribes too.
      await c.client.query({ text: 'LISTEN bullmq_jobs', name: 'listen' });
      await a.client.end();
      ended.add(a.client);
      await b.client.query("SELECT pg_notify('bullmq_jobs', $1)", ['four']);
      await until(() => c.got.length === 1);

      expect(a.got).toEqual([
        'bullmq_jobs:one',
        'bullmq_jobs:two',
        'bullmq_jobs:three',
      ]);
      expect(b.got).toEqual([]);
      expect(c.got).toEqual(['bullmq_jobs:four']);
    } finally {
      await Promise.allSettled(
        [a, b, c]
          .filter(({ client }) => !ended.has(client))
          .map(({ client }) => client.end()),
      );
    }
  });

  it('keeps the prepared statements of each connection apart and closes them when it goes away', async () => {
    const open = async () => {
      const client = new Client({ connectionString: embedded.url });
      await client.connect();
      return client;
    };
    const [a, b, observer] = [await open(), await open(), await open()];
    const ended = new Set<Client>();
    const prepared = async () =>
      (
        await observer.query<{ name: string; statement: string }>(
          'SELECT name, statement FROM pg_prepared_statements ORDER BY name',
        )
      ).rows;
    try {
      // The same name on two connections, as two pool clients running one
      // named query have; here with different texts, to tell them apart.
      const on = (client: Client, value: number) =>
        client.query<{ v: number }>({
          name: 'same',
          text: `SELECT $1::int + ${value} AS v`,
          values: [1],
        });
      expect((await on(a, 10)).rows).toEqual([{ v: 11 }]);
      expect((await on(b, 20)).rows).toEqual([{ v: 21 }]);
      // Prepared once per connection: the second run only binds.
      expect((await on(a, 10)).rows).toEqual([{ v: 11 }]);
      expect((await on(b, 20)).rows).toEqual([{ v: 21 }]);
      // A named portal as well as a named statement.
      // (`pg` sends a query's `portal` though its types leave it out.)
      const named: QueryConfig & { portal: string } = {
        name: 'with-portal',
        portal: 'cursor',
        text: 'SELECT $1::int AS v',
        values: [7],
      };
      const portal = await a.query<{ v: number }>(named);
      expect(portal.rows).toEqual([{ v: 7 }]);
      const statements = await prepared();
      expect(statements).toHaveLength(3);
      expect(statements.map((s) => s.statement).sort()).toEqual([
        'SELECT $1::int + 10 AS v',
        'SELECT $1::int + 20 AS v',
        'SELECT $1::int AS v',
      ]);

      await a.end();
      ended.add(a);
      const deadline = Date.now() + 10_000;
      while ((await prepared()).length > 1 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await prepared()).map((s) => s.statement)).toEqual([
        'SELECT $1::int + 20 AS v',
      ]);
      // The other connection's statement is still there, prepared.
      expect((await on(b, 20)).rows).toEqual([{ v: 21 }]);
      expect(await prepared()).toHaveLength(1);
    } finally {
      await Promise.allSettled(
        [a, b, observer].filter((c) => !ended.has(c)).map((c) => c.end()),
      );
    }
  });

  it('uses a new password at each start', async () => {
    const second = await EmbeddedPostgres.start(null);
    try {
      expect(new URL(second.url).password).toMatch(/^[0-9a-f]{48}$/);
      expect(new URL(second.url).password).not.toBe(url.password);
    } finally {
      await second.stop();
    }
  });
});
