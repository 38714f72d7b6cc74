import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, dropDatabase, recreateDatabase } from '../harness/database';
import { auth } from '../harness/measure';
import {
  API_NODE_ARGS,
  APP_KEY,
  DB_NAME,
  PG_ADMIN,
  PORTS,
  PREFIX,
  ROOT,
  UNLIMITED_ENV,
  zestEnv,
} from '../harness/options';
import { sleep, start, stop, waitFor } from '../harness/processes';

/** A Zest server of the embedded rows, seeded with the demo: where it answers and its key. */
export interface Server {
  name: string;
  port: number;
  /** The process to sample: the API (the embedded one also runs the workers). */
  process: ChildProcess;
  apiKey: string;
  storeId: number;
  stop(): Promise<void>;
}

/** The twin's database and queue prefix, apart from the main run's. */
const TWIN_DB = `${DB_NAME}_twin`;
export const TWIN_PREFIX = `${PREFIX}-twin`;

/**
 * Both servers run as the main run's API does (production settings, e-mail
 * off, limits raised out of the way); only the database and queue differ.
 */
const settings = (port: number) => ({
  ...UNLIMITED_ENV,
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  CHECKOUT_BASE_URL: `http://127.0.0.1:${port}`,
});

/**
 * Zest as `npm start` runs it on the embedded defaults: scripts/start.mjs,
 * no DATABASE_URL or REDIS_URL (PGlite under DATA_DIR, a temp dir here; the
 * API and the workers in one process), which seeds the demo store and key
 * on first start. start.mjs compiles first when dist/ is older than the
 * sources, deleting dist/ the other bench processes run from; the bench
 * builds with `npm run build` (which stamps dist/), so that is refused here.
 */
export async function startEmbedded(): Promise<Server> {
  const current = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { buildIsCurrent } from ${JSON.stringify(join(ROOT, 'scripts', 'build-stamp.mjs'))};
       process.exit(buildIsCurrent() ? 0 : 1);`,
    ],
    { stdio: 'inherit' },
  );
  if (current.status !== 0)
    throw new Error(
      'dist/ is older than the sources: run `npm run build` (npm run bench does) before the embedded rows',
    );
  const dataDir = mkdtempSync(join(tmpdir(), 'zest-bench-embedded-'));
  const {
    DATABASE_URL: _db,
    REDIS_URL: _redis,
    ...env
  } = zestEnv(PORTS.embedded, {
    ...settings(PORTS.embedded),
    HEALTH_PORT: String(PORTS.embeddedHealth),
    DATA_DIR: dataDir,
  });
  const child = start(
    'api (embedded)',
    join(ROOT, 'scripts', 'start.mjs'),
    env,
  );
  await waitFor(`http://127.0.0.1:${PORTS.embedded}/health/live`, 180_000);
  // The demo is seeded after the server listens; its key lands in DATA_DIR.
  const keyFile = join(dataDir, 'demo-api-key');
  const deadline = Date.now() + 120_000;
  while (!existsSync(keyFile)) {
    if (Date.now() > deadline)
      throw new Error('the embedded demo key never came');
    await sleep(200);
  }
  const apiKey = readFileSync(keyFile, 'utf8').trim();
  const stores = await fetch(`http://127.0.0.1:${PORTS.embedded}/v1/stores`, {
    headers: auth(apiKey),
  });
  const storeId = Number(
    ((await stores.json()) as { data: { id: string }[] }).data[0].id,
  );
  return {
    name: 'embedded',
    port: PORTS.embedded,
    process: child,
    apiKey,
    storeId,
    async stop() {
      await stop(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The PostgreSQL twin: an API and a worker as the main run starts them, on
 * a database of its own seeded with the same demo (`cli seed:demo`, the
 * code the embedded first start runs), so both servers hold the same data.
 */
export async function startTwin(): Promise<Server> {
  await recreateDatabase(TWIN_DB);
  const env = zestEnv(PORTS.twin, {
    ...settings(PORTS.twin),
    DATABASE_URL: PG_ADMIN.replace(/\/[^/]*$/, `/${TWIN_DB}`),
    QUEUE_PREFIX: TWIN_PREFIX,
    HEALTH_PORT: String(PORTS.twinHealth),
    APP_KEY,
  });
  cli(['migrate'], env);
  const demo = cli(['seed:demo'], env) as {
    api_key: string;
    store_id: number;
  };
  const api = start(
    'api (PostgreSQL twin)',
    join(ROOT, 'dist', 'main.js'),
    env,
    false,
    API_NODE_ARGS,
  );
  const worker = start(
    'worker (PostgreSQL twin)',
    join(ROOT, 'dist', 'worker.js'),
    env,
  );
  await waitFor(`http://127.0.0.1:${PORTS.twin}/health/live`);
  await waitFor(`http://127.0.0.1:${PORTS.twinHealth}/health/live`);
  return {
    name: 'PostgreSQL',
    port: PORTS.twin,
    process: api,
    apiKey: demo.api_key,
    storeId: demo.store_id,
    async stop() {
      await Promise.all([stop(api), stop(worker)]);
      await dropDatabase(TWIN_DB);
    },
  };
}
