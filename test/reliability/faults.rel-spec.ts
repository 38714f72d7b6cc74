import { ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathOf } from '../support/commerce';
import { createPricedProduct, postResource } from '../support/factories';
import {
  eventually,
  killProcess,
  startRedisServer,
} from '../support/processes';
import { freePort } from '../support/test-app';
import { client, JsonResponse } from './support/api';
import { Cluster, haveServices, startCluster } from './support/cluster';
import { closeAgent, errorShapeProblem, rawRequest } from './support/http';
import { report } from './support/runs';
import { runCli } from '../support/processes';

const describeWithServices = haveServices ? describe : describe.skip;
const haveRedisServer =
  haveServices && spawnSync('redis-server', ['--version']).status === 0;
const describeWithRedisServer = haveRedisServer ? describe : describe.skip;

const buyer = (email: string) => ({
  email,
  name: 'Fault Buyer',
  billing_address: { country: 'US', zip: '10001' },
  card_number: '4242424242424242',
});

async function buyNowPath(api: string, key: string, storeId: number) {
  const { product } = await createPricedProduct(api, key, storeId);
  return pathOf(
    (await client(api, key).get(`/v1/products/${product.id}`)).body.data
      .attributes.buy_now_url,
  );
}

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  let found: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found = found.concat(files(path));
    else found.push(path);
  }
  return found;
}

describeWithServices('a worker SIGKILLed while rendering invoice PDFs', () => {
  const INVOICES = 20;
  const KILLS = 3;
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({ apis: 1, workers: 1 });
  }, 120_000);
  afterAll(async () => {
    closeAgent();
    await cluster?.close();
  }, 60_000);

  it(`renders all ${INVOICES} PDFs completely across ${KILLS} kills`, async () => {
    const api = cluster.apis[0].url;
    const key = cluster.keys.main.key;
    const buy = await buyNowPath(api, key, cluster.storeId);
    const orders: string[] = [];
    for (let i = 0; i < INVOICES; i++) {
      const res = await client(api).post(buy, buyer(`pdf-${i}@example.com`));
      expect(res.status).toBe(201);
      orders.push(res.body.data.id);
    }
    const started = Date.now();
    const links = await Promise.all(
      orders.map(async (id) => {
        const res = await client(api, key).post(
          `/v1/orders/${id}/generate-invoice?name=${encodeURIComponent('Ada Lovelace')}&notes=kill-test`,
        );
        expect(res.status).toBe(200);
        return pathOf(res.body.meta.urls.download_invoice);
      }),
    );
    // Kill the worker while it renders, restart it, kill it again.
    for (let k = 0; k < KILLS; k++) {
      await new Promise((resolve) =>
        setTimeout(resolve, 50 + Math.random() * 250),
      );
      await killProcess(cluster.workers[cluster.workers.length - 1].child);
      await cluster.startWorker();
    }
    // Each poll of a link re-enqueues its render; stalled jobs come back after BullMQ's lock expires.
    const pdfs = await eventually(
      async () => {
        const responses = await Promise.all(
          links.map((link) => rawRequest(api, 'GET', link, {})),
        );
        for (const res of responses) expect([200, 202]).toContain(res.status);
        return responses.every((res) => res.status === 200)
          ? responses
          : undefined;
      },
      'every invoice rendered',
      120_000,
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    for (const res of pdfs) {
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');
      expect(res.body.subarray(-6).toString()).toMatch(/%%EOF\s*$/);
    }
    const stored = files(join(cluster.env.DATA_DIR, 'storage'));
    const complete = stored.filter((path) => path.endsWith('.pdf'));
    for (const path of complete)
      expect(readFileSync(path).subarray(-6).toString()).toMatch(/%%EOF\s*$/);
    const leftovers = stored.filter((path) => path.endsWith('.tmp')).length;
    report(
      'faults: worker SIGKILL during PDF rendering',
      `${INVOICES}/${INVOICES} PDFs complete (header and trailer) ${seconds} s after ${KILLS} kills; ${complete.length} stored files all complete, ${leftovers} orphaned temp files`,
    );
  }, 180_000);
});

describeWithRedisServer(
  'Redis stopped and restarted under the processes',
  () => {
    const BEFORE = 5;
    const DURING = 15;
    const OUTAGE_MS = 5_000;
    let cluster: Cluster;
    let redis: ChildProcess | null = null;
    let redisPort: number;
    let receiver: Server;
    let receiverUrl: string;
    const received = new Map<string, number>();

    const startRedis = async () => {
      redis = await startRedisServer(redisPort);
    };
    const stopRedis = () => killProcess(redis);

    beforeAll(async () => {
      redisPort = await freePort();
      await startRedis();
      receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          const id = String(req.headers['webhook-id']);
          received.set(id, (received.get(id) ?? 0) + 1);
          res.writeHead(200).end();
        });
      });
      receiver.listen(0, '127.0.0.1');
      await once(receiver, 'listening');
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      cluster = await startCluster({
        apis: 1,
        workers: 1,
        env: {
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_RETRY_DELAYS: '300ms*30',
          WEBHOOK_RELAY_INTERVAL_MS: '300',
          BILLING_SWEEP_INTERVAL_MS: '300',
        },
      });
    }, 120_000);
    afterAll(async () => {
      closeAgent();
      if (redis?.exitCode !== null) await startRedis().catch(() => undefined);
      await cluster?.close();
      await stopRedis();
      receiver?.closeAllConnections();
      await new Promise<void>((resolve) =>
        receiver ? receiver.close(() => resolve()) : resolve(),
      );
    }, 60_000);

    it('purchases and API reads keep working while Redis is down; every event is delivered after it returns', async () => {
      const api = cluster.apis[0].url;
      const key = cluster.keys.main.key;
      await postResource(
        api,
        key,
        'webhooks',
        {
          url: receiverUrl,
          events: ['order_created'],
          secret: 'outage-secret',
        },
        { store: { type: 'stores', id: cluster.storeId } },
      );
      const buy = await buyNowPath(api, key, cluster.storeId);
      const { product: plan } = await createPricedProduct(
        api,
        key,
        cluster.storeId,
        {
          category: 'subscription',
          renewal_interval_unit: 'month',
          renewal_interval_quantity: 1,
        },
      );
      const subscribe = pathOf(
        (await client(api, key).get(`/v1/products/${plan.id}`)).body.data
          .attributes.buy_now_url,
      );
      expect(
        (await client(api).post(subscribe, buyer('renews@example.com'))).status,
      ).toBe(201);
      for (let i = 0; i < BEFORE - 1; i++)
        expect(
          (await client(api).post(buy, buyer(`before-${i}@example.com`)))
            .status,
        ).toBe(201);

      await stopRedis();
      const outageStarted = Date.now();
      const during: JsonResponse[] = [];
      for (let i = 0; i < DURING; i++) {
        during.push(
          await client(api).post(buy, buyer(`during-${i}@example.com`)),
        );
        during.push(await client(api, key).get('/v1/orders?page[size]=1'));
      }
      const elapsed = Date.now() - outageStarted;
      if (elapsed < OUTAGE_MS)
        await new Promise((resolve) =>
          setTimeout(resolve, OUTAGE_MS - elapsed),
        );
      const failed = during.filter((res) => res.status >= 400);
      expect(
        failed.map((res) => `${res.status} ${JSON.stringify(res.body)}`),
      ).toEqual([]);

      await startRedis();
      const restarted = Date.now();
      const total = BEFORE + DURING;
      await eventually(
        async () => (received.size === total ? true : undefined),
        `all ${total} order_created events delivered`,
        60_000,
      );
      const recovery = ((Date.now() - restarted) / 1000).toFixed(1);
      const { rows } = await cluster.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM orders WHERE store_id = $1`,
        [cluster.storeId],
      );
      expect(rows[0].n).toBe(total);
      const duplicates = [...received.values()].reduce(
        (sum, n) => sum + n - 1,
        0,
      );
      // Renewals still run: the billing job scheduler outlives the Redis that lost it.
      await cluster.db.query(
        `UPDATE subscriptions SET renews_at = now() - interval '1 minute',
                next_action_at = now() - interval '1 minute' WHERE store_id = $1`,
        [cluster.storeId],
      );
      const renewedAt = Date.now();
      await eventually(
        async () => {
          const { rows: invoices } = await cluster.db.query(
            `SELECT 1 FROM subscription_invoices WHERE billing_reason = 'renewal'`,
          );
          return invoices.length === 1 ? true : undefined;
        },
        'a renewal after Redis came back',
        30_000,
      );
      const renewalSeconds = ((Date.now() - renewedAt) / 1000).toFixed(1);
      report(
        'faults: Redis stopped and restarted',
        `${DURING} purchases and ${DURING} API reads during a ${Math.round(Math.max(elapsed, OUTAGE_MS) / 1000)} s outage (Redis killed, its data lost): 0 errors; ${total}/${total} events delivered ${recovery} s after Redis returned, ${duplicates} duplicates; a subscription due afterwards renewed in ${renewalSeconds} s`,
      );
    }, 180_000);
  },
);

describeWithServices(
  'PostgreSQL backends terminated in the middle of purchases',
  () => {
    const PURCHASES = 60;
    let cluster: Cluster;

    beforeAll(async () => {
      cluster = await startCluster({ apis: 1, workers: 0 });
    }, 120_000);
    afterAll(async () => {
      closeAgent();
      await cluster?.close();
    }, 60_000);

    it(`each of ${PURCHASES} purchases is wholly there (201), or on a clean 5xx wholly absent, pending until the payment sweeper settles it, or wholly paid`, async () => {
      const api = cluster.apis[0].url;
      const key = cluster.keys.main.key;
      const buy = await buyNowPath(api, key, cluster.storeId);
      const dbName = new URL(cluster.databaseUrl).pathname.slice(1);
      let terminated = 0;
      let storming = true;
      // Terminates our own database's busy backends (never another database's), again and again.
      const storm = (async () => {
        while (storming) {
          const { rows } = await cluster.db.query<{ ok: boolean }>(
            `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid()
              AND state IN ('active', 'idle in transaction')
            LIMIT 1`,
            [dbName],
          );
          terminated += rows.filter((row) => row.ok).length;
          await new Promise((resolve) =>
            setTimeout(resolve, 20 + Math.random() * 60),
          );
        }
      })();
      const results = await Promise.all(
        Array.from({ length: PURCHASES }, async (_, i) => {
          const email = `pg-${i}@example.com`;
          const res = await rawRequest(
            api,
            'POST',
            buy,
            { 'content-type': 'application/json' },
            JSON.stringify(buyer(email)),
          );
          return { email, res };
        }),
      );
      storming = false;
      await storm;

      const ok = results.filter((r) => r.res.status === 201);
      const failed = results.filter((r) => r.res.status !== 201);
      for (const { res } of failed) {
        expect(res.status).toBeGreaterThanOrEqual(500);
        expect(errorShapeProblem(res)).toBeNull();
      }
      const purchases = async () => {
        const { rows } = await cluster.db.query<{
          email: string;
          orders: number;
          items: number;
          events: number;
          number: number;
          status: string;
        }>(
          `SELECT o.user_email AS email, count(DISTINCT o.id)::int AS orders,
                count(DISTINCT i.id)::int AS items,
                count(DISTINCT e.id)::int AS events,
                max(o.order_number)::int AS number, max(o.status) AS status
           FROM orders o
           LEFT JOIN order_items i ON i.order_id = o.id
           LEFT JOIN webhook_events e ON e.name = 'order_created' AND e.data->>'id' = o.id::text
          WHERE o.store_id = $1 GROUP BY o.user_email`,
          [cluster.storeId],
        );
        return rows;
      };
      const rows = await purchases();
      const byEmail = new Map(rows.map((row) => [row.email, row]));
      for (const { email } of ok)
        expect(byEmail.get(email)).toMatchObject({
          orders: 1,
          items: 1,
          events: 1,
          status: 'paid',
        });
      // Cut off before its intent committed, a purchase is wholly absent;
      // after (around the processor call or its settlement), it is a
      // pending order with its item and number and no event yet, which the
      // payment sweeper settles from the stored attempt; cut off after its
      // settlement committed (reading the order back for the answer), it
      // is wholly paid, with its event.
      const present = failed.filter(({ email }) => byEmail.has(email));
      const pending = present.filter(
        ({ email }) => byEmail.get(email)!.status === 'pending',
      );
      const settledBefore = present.length - pending.length;
      for (const { email } of present)
        expect(byEmail.get(email)).toMatchObject(
          byEmail.get(email)!.status === 'pending'
            ? { orders: 1, items: 1, events: 0 }
            : { orders: 1, items: 1, events: 1, status: 'paid' },
        );
      expect(rows).toHaveLength(ok.length + present.length);
      const numbers = rows.map((row) => row.number).sort((a, b) => a - b);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
      expect(
        await runCli(cluster.env, ['payments:sweep', '--older-than', '0']),
      ).toEqual({ settled: pending.length });
      const settled = new Map(
        (await purchases()).map((row) => [row.email, row]),
      );
      for (const { email } of pending)
        expect(settled.get(email)).toMatchObject({
          orders: 1,
          events: 1,
          status: 'paid',
        });
      // The pool recovers: the next purchase succeeds.
      expect(
        (await client(api).post(buy, buyer('after@example.com'))).status,
      ).toBe(201);
      report(
        'faults: pg_terminate_backend during purchases',
        `${PURCHASES} concurrent purchases, ${terminated} backends terminated: ${ok.length} × 201 wholly present (order, item, event), ${failed.length} × clean 5xx (${failed.length - present.length} wholly absent, ${pending.length} pending and then settled once by payments:sweep, ${settledBefore} cut off after settling, wholly paid); order numbers gap-free`,
      );
    }, 180_000);
  },
);
