import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { BenchState } from '../state';
import {
  DIST_BENCH,
  PG_ADMIN,
  PORTS,
  REDIS_URL,
  ROOT,
  STATE,
  zestEnv,
} from './options';
import { children, log, sleep } from './processes';

/** Drops and creates `name` on the bench's PostgreSQL server. */
export async function recreateDatabase(name: string) {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
}

export async function dropDatabase(name: string) {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/**
 * A command of Zest's CLI (`dist/cli.js <args> --json`) in `env`; its JSON
 * answer.
 */
export function cli(args: string[], env: Record<string, string>): unknown {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'dist', 'cli.js'), ...args, '--json'],
    { env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`cli ${args.join(' ')} failed`);
  return JSON.parse(run.stdout) as unknown;
}

export async function seed(flags: string[]) {
  const child = spawn(
    process.execPath,
    [join(DIST_BENCH, 'seed.js'), '--state', STATE, ...flags],
    {
      env: zestEnv(PORTS.api),
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  children.add(child);
  const code = await new Promise<number | null>((done) =>
    child.once('exit', done),
  );
  children.delete(child);
  if (code !== 0) throw new Error(`seed ${flags.join(' ')} failed (${code})`);
  return JSON.parse(readFileSync(STATE, 'utf8')) as BenchState;
}

/**
 * Waits until the database is quiet after a seed, so that no measurement
 * pays for the seed's aftermath (the autovacuum of the rows the relay
 * updated, a checkpoint of the seed's writes), least of all the server
 * measured first in each round: the worker's relay has consumed every event
 * the seed wrote, those rows are vacuumed, dirty pages are flushed, and no
 * autovacuum worker is running.
 */
export async function settle(db: pg.Client) {
  const count = async (sql: string) =>
    (await db.query<{ n: number }>(sql)).rows[0].n;
  while (
    (await count(
      `SELECT count(*)::int AS n FROM webhook_events WHERE relayed_at IS NULL`,
    )) > 0
  ) {
    await sleep(500);
  }
  await db.query('VACUUM ANALYZE');
  await db.query('CHECKPOINT').catch((error: Error) => {
    log(`no CHECKPOINT (${error.message}); measuring anyway`);
  });
  const deadline = Date.now() + 120_000;
  while (
    Date.now() < deadline &&
    (await count(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
    )) > 0
  ) {
    await sleep(500);
  }
}

/** Queue and rate-limit keys live under a prefix of this run; remove them. */
export async function cleanRedis(prefix: string) {
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(
      cursor,
      'MATCH',
      `${prefix}:*`,
      'COUNT',
      1000,
    );
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}
