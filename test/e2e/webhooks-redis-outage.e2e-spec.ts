import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import request from 'supertest';
import { Transactions } from '../../src/database/transactions';
import { StoreSerializer } from '../../src/modules/store/store.serializer';
import { StoreService } from '../../src/modules/store/store.service';
import { Outbox } from '../../src/modules/webhooks/outbox';
import { createMerchant, Merchant } from '../support/factories';
import { freePort, startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

const OUTAGE_MS = 10_000;

// Needs its own redis-server to stop (never the shared one) and a database
// server (the outage concerns the Redis backend).
const haveRedisServer =
  spawnSync('redis-server', ['--version']).status === 0 &&
  Boolean(process.env.DATABASE_URL);
const describeWithRedis = haveRedisServer ? describe : describe.skip;

async function waitForPort(port: number) {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeWithRedis('webhooks during a Redis outage', () => {
  let redisPort: number;
  let redis: ChildProcess | null = null;
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let server: Server;
  let receiverPort: number;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  const startRedis = async () => {
    redis = spawn(
      'redis-server',
      [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(redisPort);
  };

  const stopRedis = async () => {
    const child = redis;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    redisPort = await freePort();
    await startRedis();
    t = await startTestApp({
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS: '200ms*50',
      WEBHOOK_RELAY_INTERVAL_MS: '300',
    });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Outage Store']);
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200).end('ok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    receiverPort = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await stopRedis();
    server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      server ? server.close(() => resolve()) : resolve(),
    );
  });

  it('keeps committing events while Redis is down (its data lost) and delivers all of them after', async () => {
    await request(t.baseUrl)
      .post('/v1/webhooks')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'webhooks',
            attributes: {
              url: `http://127.0.0.1:${receiverPort}/in`,
              events: ['order_created'],
              secret: 'outage-secret',
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

    for (let n = 0; n < 10; n++) await record(n);
    const deadline = () => Date.now() + 60_000;
    let until = deadline();
    while (received.length < 10 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toHaveLength(10);

    // Redis dies and comes back empty: queued jobs and the sweep scheduler are gone.
    await stopRedis();
    const outageEnds = Date.now() + OUTAGE_MS;
    let n = 10;
    const slowest: number[] = [];
    while (Date.now() < outageEnds) {
      const started = Date.now();
      await record(n++);
      slowest.push(Date.now() - started);
      // The API keeps answering too.
      await request(t.baseUrl)
        .get('/v1/webhooks')
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .expect(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const total = n;
    // Committing an event never waits for Redis.
    expect(Math.max(...slowest)).toBeLessThan(1000);
    expect(received.length).toBeLessThan(total);
    await startRedis();

    until = deadline();
    const numbers = () =>
      new Set(
        received.map(
          (r) =>
            (JSON.parse(r.body) as { meta: { custom_data: { n: number } } })
              .meta.custom_data.n,
        ),
      );
    while (numbers().size < total && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(numbers().size).toBe(total);
  }, 120_000);
});
