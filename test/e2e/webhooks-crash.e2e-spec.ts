import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions';
import { StoreSerializer } from '../../src/modules/store/store.serializer';
import { StoreService } from '../../src/modules/store/store.service';
import { Outbox } from '../../src/modules/webhooks/outbox';
import { createMerchant, Merchant } from '../support/factories';
import {
  freePort,
  startTestApp,
  TEST_APP_KEY,
  TestApp,
} from '../support/test-app';

const EVENTS = 200;
const KILLS = 5;

// A separate worker process needs a database server: the embedded PGlite
// belongs to the one process that opened it.
const describeWithServer = process.env.DATABASE_URL ? describe : describe.skip;

describeWithServer('webhook delivery survives a killed worker', () => {
  let t: TestApp;
  let merchant: Merchant;
  let server: Server;
  let port: number;
  let worker: ChildProcess | null = null;
  let duplicates = 0;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  const startWorker = async () => {
    const healthPort = await freePort();
    const child = spawn(
      process.execPath,
      [join(process.cwd(), 'dist/worker.js')],
      {
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          DATABASE_URL: t.config.database.url!,
          ...(t.config.queue.redisUrl
            ? { REDIS_URL: t.config.queue.redisUrl }
            : {}),
          QUEUE_PREFIX: t.config.queue.prefix,
          APP_KEY: TEST_APP_KEY,
          HEALTH_PORT: String(healthPort),
          LOG_LEVEL: 'silent',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_RETRY_DELAYS: '200ms*30',
          WEBHOOK_RELAY_INTERVAL_MS: '300',
          WEBHOOK_TIMEOUT_MS: '2000',
        },
        stdio: 'ignore',
      },
    );
    worker = child;
    // Ready = its health listener answers, which happens after the processors started.
    for (;;) {
      if (child.exitCode !== null) throw new Error('worker exited on start');
      const ready = await fetch(
        `http://127.0.0.1:${healthPort}/health/live`,
      ).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const killWorker = async () => {
    const child = worker;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    merchant = await createMerchant(t.app, ['Crash Store']);
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        // A little latency, so kills also land mid-request.
        setTimeout(() => res.writeHead(200).end('ok'), Math.random() * 30);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    // The figure the reliability anchor asks for; duplicates are allowed (at least once).
    process.stdout.write(
      `webhook crash test: ${duplicates} duplicate deliveries after ${KILLS} kills\n`,
    );
    await killWorker();
    server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      server ? server.close(() => resolve()) : resolve(),
    );
    await t?.close();
  });

  it(`delivers all ${EVENTS} events at least once across ${KILLS} SIGKILLs, duplicates identical`, async () => {
    for (const path of ['/a', '/b']) {
      await request(t.baseUrl)
        .post('/v1/webhooks')
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(
          JSON.stringify({
            data: {
              type: 'webhooks',
              attributes: {
                url: `http://127.0.0.1:${port}${path}`,
                events: ['order_created'],
                secret: 'crash-secret',
              },
              relationships: {
                store: {
                  data: { type: 'stores', id: String(merchant.stores[0].id) },
                },
              },
            },
          }),
        )
        .expect(201);
    }
    const storeId = merchant.stores[0].id;
    const store = (await t.app
      .get(StoreService)
      .findOne(
        { userId: merchant.userId, apiKeyId: 0, testMode: true },
        storeId,
      ))!;
    const record = (n: number) =>
      t.app.get(Transactions).run((manager) =>
        t.app.get(Outbox).record(manager, {
          name: 'order_created',
          storeId,
          testMode: true,
          resource: t.app.get(StoreSerializer),
          record: store,
          customData: { n },
        }),
      );

    await startWorker();
    let kills = 0;
    const killer = (async () => {
      while (kills < KILLS) {
        // Kill a worker that is busy: after it has delivered something more.
        const before = received.length;
        while (received.length < before + 10 && kills < KILLS) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await new Promise((resolve) =>
          setTimeout(resolve, Math.random() * 200),
        );
        await killWorker();
        kills++;
        await startWorker();
      }
    })();
    for (let n = 0; n < EVENTS; n++) {
      await record(n);
      if (n % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await killer;
    expect(kills).toBe(KILLS);

    const expected = EVENTS * 2;
    const deadline = Date.now() + 150_000;
    const distinct = () =>
      new Set(received.map((r) => r.headers['webhook-id'])).size;
    while (distinct() < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(distinct()).toBe(expected);
    duplicates = received.length - expected;

    // Every copy of a delivery carries the same webhook-id and the same body.
    const bodies = new Map<string, Set<string>>();
    for (const r of received) {
      const id = r.headers['webhook-id'] as string;
      bodies.set(id, (bodies.get(id) ?? new Set()).add(r.body));
    }
    for (const set of bodies.values()) expect(set.size).toBe(1);
    const numbers = new Set(
      received.map((r) => {
        const body = JSON.parse(r.body) as {
          meta: { custom_data: { n: number } };
        };
        return `${String(r.headers['webhook-id'])}:${body.meta.custom_data.n}`;
      }),
    );
    expect(numbers.size).toBe(expected);
    // The database converges too: every delivery succeeded (a worker killed
    // after sending but before recording leaves it pending until the retry).
    const statuses = () =>
      t.app
        .get(DataSource)
        .query(
          `SELECT status, count(*)::int AS count FROM webhook_deliveries GROUP BY status`,
        ) as Promise<{ status: string; count: number }[]>;
    let rows = await statuses();
    while (rows.length !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      rows = await statuses();
    }
    expect(rows).toEqual([{ status: 'succeeded', count: expected }]);
  }, 240_000);
});
