import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { pathOf } from '../support/commerce';
import { createPricedProduct, postResource } from '../support/factories';
import { eventually } from '../support/processes';
import { client, JsonResponse } from './support/api';
import { Cluster, haveServices, startCluster } from './support/cluster';
import { closeAgent } from './support/http';
import { report } from './support/runs';

const PURCHASES = 40;
const SUBSCRIPTIONS = 6;
const RATE_LIMIT = 100;
const RATE_REQUESTS = 250;
const LOCK_DECLINES = 10;
const LOCK_SECONDS = 120;
const CARD_TESTS = 150;

const describeWithServices = haveServices ? describe : describe.skip;

/** Two API and two worker processes over one PostgreSQL database and one Redis. */
describeWithServices('two API replicas and two workers', () => {
  let cluster: Cluster;
  let receiver: Server;
  let receiverUrl: string;
  /** Receipts per webhook-id: the first attempt of each is answered 500, the second 200. */
  const receipts = new Map<string, string[]>();

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        const seen = receipts.get(id) ?? [];
        seen.push(Buffer.concat(chunks).toString('utf8'));
        receipts.set(id, seen);
        res.writeHead(seen.length === 1 ? 500 : 200).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    cluster = await startCluster({
      apis: 2,
      workers: 2,
      keys: ['main', 'rate'],
      env: {
        RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
        // Every buyer here is 127.0.0.1 (the per-IP limits stay generous);
        // the checkout pause is what the card-testing test shares.
        CHECKOUT_LOCK_DECLINES: String(LOCK_DECLINES),
        CHECKOUT_LOCK_SECONDS: String(LOCK_SECONDS),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_DELAYS: '300ms*5',
        WEBHOOK_RELAY_INTERVAL_MS: '300',
        BILLING_SWEEP_INTERVAL_MS: '300',
      },
    });
  }, 180_000);

  afterAll(async () => {
    closeAgent();
    await cluster?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) =>
      receiver ? receiver.close(() => resolve()) : resolve(),
    );
  }, 60_000);

  it(`${PURCHASES} purchases spread over both APIs: all succeed, order numbers 1..N without gaps; each webhook event delivered once per attempt`, async () => {
    const [a, b] = cluster.apis;
    const key = cluster.keys.main.key;
    await postResource(
      a.url,
      key,
      'webhooks',
      { url: receiverUrl, events: ['order_created'], secret: 'replica-secret' },
      { store: { type: 'stores', id: cluster.storeId } },
    );
    const { product } = await createPricedProduct(a.url, key, cluster.storeId);
    const buyNow = pathOf(
      (await client(a.url, key).get(`/v1/products/${product.id}`)).body.data
        .attributes.buy_now_url,
    );
    const responses = await Promise.all(
      Array.from({ length: PURCHASES }, (_, i) =>
        client(i % 2 ? b.url : a.url).post(buyNow, {
          email: `replica-${i}@example.com`,
          name: 'Replica Buyer',
          billing_address: { country: 'US', zip: '10001' },
          card_number: '4242424242424242',
        }),
      ),
    );
    expect(responses.map((res) => res.status)).toEqual(
      responses.map(() => 201),
    );
    const { rows } = await cluster.db.query<{ n: number }>(
      `SELECT order_number AS n FROM orders WHERE store_id = $1 ORDER BY order_number`,
      [cluster.storeId],
    );
    expect(rows.map((row) => Number(row.n))).toEqual(rows.map((_, i) => i + 1));
    expect(rows).toHaveLength(PURCHASES);

    // Every event: attempt 1 (answered 500) and attempt 2 (200), never a third or a duplicate.
    await eventually(
      async () =>
        receipts.size === PURCHASES &&
        [...receipts.values()].every((bodies) => bodies.length >= 2)
          ? true
          : undefined,
      'both attempts of every event',
      60_000,
    );
    // Two more relay and retry intervals for any stray duplicate to show up.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const counts = [...receipts.values()].map((bodies) => bodies.length);
    expect(counts).toEqual(counts.map(() => 2));
    for (const bodies of receipts.values()) expect(bodies[1]).toBe(bodies[0]);
    const attempts = await cluster.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_delivery_attempts`,
    );
    expect(attempts.rows[0].n).toBe(PURCHASES * 2);
    report(
      'replicas: purchases and webhooks',
      `${PURCHASES} purchases over 2 APIs → order numbers 1..${PURCHASES}, no gap; ${PURCHASES} events × 2 attempts over 2 workers → ${counts.reduce((x, y) => x + y, 0)} receipts, 0 duplicates`,
    );
  }, 180_000);

  it(`the rate limit (${RATE_LIMIT}/min per key) holds across both APIs`, async () => {
    const key = cluster.keys.rate.key;
    const statuses: number[] = [];
    const retryAfter: number[] = [];
    for (let i = 0; i < RATE_REQUESTS; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          fetch(`${cluster.apis[(i + j) % 2].url}/v1/users/me`, {
            headers: { Authorization: `Bearer ${key}` },
          }).then(async (res) => {
            await res.arrayBuffer();
            if (res.status === 429)
              retryAfter.push(Number(res.headers.get('retry-after')));
            return res.status;
          }),
        ),
      );
      statuses.push(...batch);
    }
    const accepted = statuses.filter((status) => status === 200).length;
    expect(accepted).toBe(RATE_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(
      RATE_REQUESTS - RATE_LIMIT,
    );
    for (const seconds of retryAfter) {
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(60);
    }
    report(
      'replicas: rate limit',
      `${RATE_REQUESTS} requests round-robin over 2 APIs, limit ${RATE_LIMIT}/min → ${accepted} accepted, ${RATE_REQUESTS - accepted} × 429 with Retry-After ≤ 60 s`,
    );
  }, 120_000);

  it(`renewal sweeps in both workers bill each of ${SUBSCRIPTIONS} subscriptions once`, async () => {
    const [a, b] = cluster.apis;
    const key = cluster.keys.main.key;
    const { product } = await createPricedProduct(a.url, key, cluster.storeId, {
      category: 'subscription',
      renewal_interval_unit: 'month',
      renewal_interval_quantity: 1,
    });
    const buyNow = pathOf(
      (await client(a.url, key).get(`/v1/products/${product.id}`)).body.data
        .attributes.buy_now_url,
    );
    const bought = await Promise.all(
      Array.from({ length: SUBSCRIPTIONS }, (_, i) =>
        client(i % 2 ? b.url : a.url).post(buyNow, {
          email: `renew-${i}@example.com`,
          name: 'Renewing Buyer',
          billing_address: { country: 'US', zip: '10001' },
          card_number: '4242424242424242',
        }),
      ),
    );
    expect(bought.map((res) => res.status)).toEqual(bought.map(() => 201));
    // A month passes: the period ends a minute ago (the workers sweep on the real clock).
    await cluster.db.query(
      `UPDATE subscriptions
          SET renews_at = now() - interval '1 minute',
              next_action_at = now() - interval '1 minute'
        WHERE store_id = $1`,
      [cluster.storeId],
    );
    const renewals = () =>
      cluster.db
        .query<{ id: number; n: number; paid: number }>(
          `SELECT s.id, count(i.id)::int AS n,
                  count(i.id) FILTER (WHERE i.status = 'paid')::int AS paid
             FROM subscriptions s
             LEFT JOIN subscription_invoices i
               ON i.subscription_id = s.id AND i.billing_reason = 'renewal'
            WHERE s.store_id = $1 GROUP BY s.id`,
          [cluster.storeId],
        )
        .then((result) => result.rows);
    await eventually(
      async () =>
        (await renewals()).every((row) => row.n >= 1) ? true : undefined,
      'every subscription renewed',
      30_000,
    );
    // More sweeps from both workers (every 300 ms) find nothing more to bill.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const rows = await renewals();
    expect(rows).toHaveLength(SUBSCRIPTIONS);
    for (const row of rows) expect([row.n, row.paid]).toEqual([1, 1]);
    const { rows: periods } = await cluster.db.query<{ ok: boolean }>(
      `SELECT renews_at > now() + interval '27 days' AS ok FROM subscriptions WHERE store_id = $1`,
      [cluster.storeId],
    );
    expect(periods.every((row) => row.ok)).toBe(true);
    report(
      'replicas: renewals',
      `${SUBSCRIPTIONS} due subscriptions swept by 2 workers every 300 ms → ${rows.reduce((x, row) => x + row.n, 0)} renewal invoices (1 each), all paid once`,
    );
  }, 120_000);

  it(`card testing over both APIs: ${LOCK_DECLINES} declines pause the checkout on every replica`, async () => {
    const [a, b] = cluster.apis;
    const key = cluster.keys.main.key;
    const buyNowOf = async (name: string) => {
      const { product } = await createPricedProduct(
        a.url,
        key,
        cluster.storeId,
        {},
        { name },
      );
      return pathOf(
        (await client(a.url, key).get(`/v1/products/${product.id}`)).body.data
          .attributes.buy_now_url,
      );
    };
    const target = await buyNowOf('Card-tested');
    const attempt = (url: string, path: string, card: string, i: number) =>
      client(url).post(path, {
        email: `tester-${i}@example.com`,
        name: 'Card Tester',
        billing_address: { country: 'US', zip: '10001' },
        card_number: card,
      });
    const started = Date.now();
    const answers: JsonResponse[] = [];
    for (let burst = 0; burst < CARD_TESTS / 25; burst++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            attempt(i % 2 ? b.url : a.url, target, '4000000000000002', i),
          ),
        )),
      );
    }
    const elapsed = Date.now() - started;
    const declined = answers.filter((res) => res.status === 402).length;
    const locked = answers.filter(
      (res) =>
        res.status === 429 && res.body.errors[0].code === 'checkout_locked',
    );
    expect(declined + locked.length).toBe(CARD_TESTS);
    // The first burst runs in parallel; once its declines are counted, both
    // replicas refuse every attempt.
    expect(declined).toBeGreaterThanOrEqual(LOCK_DECLINES);
    expect(declined).toBeLessThanOrEqual(25);
    for (const res of answers.slice(25)) expect(res.status).toBe(429);
    for (const res of locked) {
      const seconds = Number(res.headers['retry-after']);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(LOCK_SECONDS);
    }
    // A good card is refused on either replica; another checkout sells on both.
    const good = await Promise.all(
      [a, b].map((api, i) => attempt(api.url, target, '4242424242424242', i)),
    );
    expect(good.map((res) => res.status)).toEqual([429, 429]);
    const other = await buyNowOf('Not attacked');
    const sold = await Promise.all(
      [a, b].map((api, i) => attempt(api.url, other, '4242424242424242', i)),
    );
    expect(sold.map((res) => res.status)).toEqual([201, 201]);
    report(
      'replicas: card testing',
      `${CARD_TESTS} declined cards in bursts of 25 alternating over 2 APIs (${elapsed} ms) → ${declined} × 402, ${locked.length} × 429 checkout_locked (pause after ${LOCK_DECLINES} declines, Retry-After ≤ ${LOCK_SECONDS} s); a good card then 429 on both APIs, another checkout 201 on both`,
    );
  }, 120_000);
});
