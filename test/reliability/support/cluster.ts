import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import {
  createTestKeyByCli,
  runCli,
  spawnZest,
  startZestWorker,
  terminate,
  waitForReady,
  ZestProcess,
} from '../../support/processes';
import {
  createTestDatabase,
  freePort,
  GENEROUS_PUBLIC_LIMITS,
  TEST_APP_KEY,
} from '../../support/test-app';

/**
 * Production's shape on one machine: `node dist/main.js` and
 * `node dist/worker.js` replicas over one fresh PostgreSQL database and one
 * Redis (its own key prefix), set up through the CLI as an operator would.
 */
export interface Cluster {
  env: Record<string, string>;
  databaseUrl: string;
  apis: { process: ZestProcess; url: string }[];
  workers: ZestProcess[];
  db: Client;
  userId: number;
  storeId: number;
  /** Test-mode API keys by name. */
  keys: Record<string, { id: number; key: string }>;
  startApi(): Promise<{ process: ZestProcess; url: string }>;
  startWorker(): Promise<ZestProcess>;
  close(): Promise<void>;
}

export const haveServices = Boolean(
  process.env.DATABASE_URL && process.env.REDIS_URL,
);

export async function startCluster(options: {
  apis: number;
  workers: number;
  keys?: string[];
  env?: Record<string, string>;
}): Promise<Cluster> {
  const database = await createTestDatabase();
  const prefix = `zest-rel-${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'zest-rel-'));
  const env: Record<string, string> = {
    DATABASE_URL: database.url as string,
    REDIS_URL: process.env.REDIS_URL as string,
    APP_KEY: TEST_APP_KEY,
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...GENEROUS_PUBLIC_LIMITS,
    ...options.env,
  };
  await runCli(env, ['migrate']);
  const user = await runCli(env, [
    'users:create',
    '--email',
    `cluster-${prefix}@example.com`,
    '--name',
    'Cluster',
  ]);
  const store = await runCli(env, [
    'stores:create',
    '--user',
    String(user.id),
    '--name',
    'Cluster Store',
  ]);
  const keys: Cluster['keys'] = {};
  for (const name of options.keys ?? ['main']) {
    keys[name] = await createTestKeyByCli(env, user.id, name);
  }
  const apis: Cluster['apis'] = [];
  const workers: ZestProcess[] = [];
  const startApi = async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const api = {
      process: spawnZest('main', {
        ...env,
        PORT: String(port),
        PUBLIC_BASE_URL: url,
      }),
      url,
    };
    apis.push(api);
    await waitForReady(api.process, `${url}/health/ready`);
    return api;
  };
  const startWorker = async () => {
    const worker = await startZestWorker(env);
    workers.push(worker);
    return worker;
  };
  await Promise.all([
    ...Array.from({ length: options.apis }, startApi),
    ...Array.from({ length: options.workers }, startWorker),
  ]);
  const db = new Client({ connectionString: database.url as string });
  await db.connect();
  return {
    env,
    databaseUrl: database.url as string,
    apis,
    workers,
    db,
    userId: user.id as number,
    storeId: store.id as number,
    keys,
    startApi,
    startWorker,
    async close() {
      await Promise.all(
        [...apis.map((api) => api.process), ...workers]
          .filter(
            (p) => p.child.exitCode === null && p.child.signalCode === null,
          )
          .map((p) => terminate(p)),
      );
      await db.end();
      const redis = new Redis(env.REDIS_URL);
      const stale = await redis.keys(`${prefix}:*`);
      if (stale.length > 0) await redis.del(...stale);
      redis.disconnect();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
