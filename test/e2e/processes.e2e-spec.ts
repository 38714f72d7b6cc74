import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { CoreModule } from '../../src/app/core.module';
import { loadConfig } from '../../src/config/app-config';
import { ApiKeyService } from '../../src/modules/account/api-key.service';
import { UserService } from '../../src/modules/account/user.service';
import {
  eventually,
  runCli,
  spawnZest,
  startZestWorker,
  terminate,
  waitForReady,
  ZestProcess,
} from '../support/processes';
import {
  IDEMPOTENCY_PURGE_QUEUE,
  IDEMPOTENCY_PURGE_SCHEDULER,
} from '../../src/http/idempotency/idempotency-purge.queue';
import {
  createTestDatabase,
  freePort,
  TEST_APP_KEY,
} from '../support/test-app';

const withServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const describeWithServices = withServices ? describe : describe.skip;

/**
 * `node dist/main.js` and `node dist/worker.js` as the Docker images run
 * them: separate processes sharing PostgreSQL (a fresh database) and Redis.
 * The embedded default runs everything in one process, so there is nothing
 * to test there.
 */
describeWithServices(
  `separate API and worker processes${withServices ? '' : ' (skipped: needs DATABASE_URL and REDIS_URL)'}`,
  () => {
    let database: { url: string | null; drop: () => Promise<void> };
    let db: Client;
    let redis: Redis;
    let env: Record<string, string>;
    let prefix: string;
    let dataDir: string;
    const apis: { process: ZestProcess; url: string }[] = [];
    let worker: ZestProcess;
    const keys: Record<'a' | 'b' | 'c' | 'd', { id: number; key: string }> =
      {} as never;

    const startWorker = () => startZestWorker(env);

    beforeAll(async () => {
      database = await createTestDatabase();
      prefix = `zest-proc-${randomBytes(4).toString('hex')}`;
      dataDir = mkdtempSync(join(tmpdir(), 'zest-proc-'));
      env = {
        DATABASE_URL: database.url as string,
        REDIS_URL: process.env.REDIS_URL as string,
        APP_KEY: TEST_APP_KEY,
        QUEUE_PREFIX: prefix,
        DATA_DIR: dataDir,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
      };
      await runCli(env, ['migrate']);
      // The user and keys are made in this process, through the services the
      // CLI calls (cli.e2e-spec runs users:create and api-keys:create): one
      // application context here instead of five CLI processes booting one.
      const context = await NestFactory.createApplicationContext(
        CoreModule.forRoot(loadConfig(env), {
          url: database.url as string,
          embedded: null,
        }),
        { logger: false },
      );
      try {
        const user = await context.get(UserService).create({
          email: 'processes@example.com',
          name: 'Processes',
        });
        for (const name of ['a', 'b', 'c', 'd'] as const) {
          const created = await context
            .get(ApiKeyService)
            .create(user.id, 'test', name);
          keys[name] = { id: created.apiKey.id, key: created.key };
        }
      } finally {
        await context.close();
      }
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        apis.push({
          process: spawnZest('main', {
            ...env,
            PORT: String(port),
            PUBLIC_BASE_URL: url,
          }),
          url,
        });
      }
      [worker] = await Promise.all([
        startWorker(),
        ...apis.map((api) =>
          waitForReady(api.process, `${api.url}/health/ready`),
        ),
      ]);
      db = new Client({ connectionString: database.url as string });
      await db.connect();
      redis = new Redis(process.env.REDIS_URL as string);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(
        [...apis.map((api) => api.process), worker]
          .filter(Boolean)
          .map((p) => terminate(p)),
      );
      await db?.end();
      if (redis) {
        const stale = await redis.keys(`${prefix}:*`);
        if (stale.length > 0) await redis.del(...stale);
        redis.disconnect();
      }
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    const me = (key: string, api = apis[0]) =>
      fetch(`${api.url}/v1/users/me`, {
        headers: { Authorization: `Bearer ${key}` },
      });

    const lastUsedAt = async (id: number): Promise<Date | null> => {
      const { rows } = await db.query<{ last_used_at: Date | null }>(
        'SELECT last_used_at FROM api_keys WHERE id = $1',
        [id],
      );
      return rows[0].last_used_at;
    };

    it('processes in the worker a job the API enqueued', async () => {
      expect(await lastUsedAt(keys.a.id)).toBeNull();
      expect((await me(keys.a.key)).status).toBe(200);
      const usedAt = await eventually(
        async () => (await lastUsedAt(keys.a.id)) ?? undefined,
        'api_keys.last_used_at to be set by the worker',
      );
      expect(Math.abs(usedAt.getTime() - Date.now())).toBeLessThan(60_000);
    });

    it('registers the hourly idempotency purge as a job scheduler in the worker', async () => {
      // BullMQ leaves a connection it was given open; this one is closed here.
      const connection = redis.duplicate();
      const queue = new Queue(IDEMPOTENCY_PURGE_QUEUE, { prefix, connection });
      try {
        const scheduler = await queue.getJobScheduler(
          IDEMPOTENCY_PURGE_SCHEDULER,
        );
        expect(scheduler?.every).toBe(60 * 60 * 1000);
      } finally {
        await queue.close();
        connection.disconnect();
      }
    });

    it('holds 300 requests a minute per key across two API processes sharing Redis', async () => {
      const remaining: number[] = [];
      const statuses: number[] = [];
      // 10 at a time, alternating between the two processes.
      for (let batch = 0; batch < 30; batch++) {
        const responses = await Promise.all(
          Array.from({ length: 10 }, (_, i) => me(keys.d.key, apis[i % 2])),
        );
        for (const response of responses) {
          statuses.push(response.status);
          expect(response.headers.get('x-ratelimit-limit')).toBe('300');
          remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
        }
      }
      expect(statuses.every((status) => status === 200)).toBe(true);
      // One shared counter: every count from 1 to 300 was handed out once.
      expect([...remaining].sort((x, y) => x - y)).toEqual(
        Array.from({ length: 300 }, (_, i) => i),
      );
      for (const api of apis) {
        const refused = await me(keys.d.key, api);
        expect(refused.status).toBe(429);
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        const body = (await refused.json()) as {
          errors: { status: string }[];
        };
        expect(body.errors[0].status).toBe('429');
      }
      // Other keys are unaffected.
      expect((await me(keys.a.key, apis[1])).status).toBe(200);
    });

    it('counts failed authentications per IP across two API processes sharing Redis', async () => {
      const unknown = `zest_test_${'C'.repeat(43)}`;
      // The default limit, 60 a minute; 10 at a time, alternating.
      const statuses: string[] = [];
      for (let batch = 0; batch < 6; batch++) {
        const responses = await Promise.all(
          Array.from({ length: 10 }, (_, i) => me(unknown, apis[i % 2])),
        );
        statuses.push(
          ...responses.map(
            (response) =>
              `${response.status} ${response.headers.get('retry-after') ?? '-'}`,
          ),
        );
      }
      expect(statuses.every((status) => status === '401 -')).toBe(true);
      for (const api of apis) {
        const refused = await me(unknown, api);
        expect(refused.status).toBe(401);
        expect(
          Number(refused.headers.get('retry-after')),
        ).toBeGreaterThanOrEqual(1);
        const body = (await refused.json()) as {
          errors: { status: string; code?: string }[];
        };
        expect(body.errors[0]).toMatchObject({
          status: '401',
          code: 'too_many_failed_authentications',
        });
      }
      // A valid key from the same address is still served, on both.
      for (const api of apis)
        expect((await me(keys.a.key, api)).status).toBe(200);
    });

    it('finishes the current job on SIGTERM, exits 0, and a job queued meanwhile runs after restart', async () => {
      const before = (
        await db.query('SELECT * FROM api_keys WHERE id = $1', [keys.b.id])
      ).rows[0];
      // Hold the key's row so the worker's job blocks mid-way.
      const holder = new Client({ connectionString: database.url as string });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [
        keys.b.id,
      ]);
      try {
        expect((await me(keys.b.key)).status).toBe(200);
        await eventually(async () => {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows[0].n > 0 ? true : undefined;
        }, 'the worker to block on the locked row');

        worker.child.kill('SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        // Still draining: it waits for the job it holds.
        expect(worker.child.exitCode).toBeNull();

        // A job enqueued while the worker is going away waits in the queue.
        expect((await me(keys.c.key)).status).toBe(200);
        await eventually(
          async () =>
            (await redis.llen(`${prefix}:api-key-usage:wait`)) > 0
              ? true
              : undefined,
          'the second job to be queued',
        );
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }

      expect(await worker.exited).toBe(0);
      const after = (
        await db.query('SELECT * FROM api_keys WHERE id = $1', [keys.b.id])
      ).rows[0];
      expect(after.last_used_at).toBeInstanceOf(Date);
      expect({ ...after, last_used_at: null }).toEqual(before);
      expect(await lastUsedAt(keys.c.id)).toBeNull();

      worker = await startWorker();
      await eventually(
        async () => (await lastUsedAt(keys.c.id)) ?? undefined,
        'the restarted worker to process the queued job',
      );
      expect(await terminate(worker)).toBe(0);
      for (const api of apis) expect(await terminate(api.process)).toBe(0);
    }, 60_000);
  },
);
