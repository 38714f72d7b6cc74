import {
  alternate,
  auth,
  getSpec,
  type Measured,
  medianOf,
} from '../harness/measure';
import { QUICK, ROUNDS } from '../harness/options';
import { log } from '../harness/processes';
import { addRow } from '../harness/table';
import { GOOD_CARD } from '../state';
import { startEmbedded, startTwin, type Server } from './embedded-servers';
import { purchaseSpec } from './purchases';
import { singleRecords, type UsageTarget } from './usage';

/** The seed each server gets through its API: small, as a newcomer's store is. */
const SEED = QUICK
  ? { products: 20, orders: 200, subscriptions: 10 }
  : { products: 100, orders: 1_000, subscriptions: 20 };

/** What the API seed made on one server. */
interface Seeded {
  productIds: string[];
  /** The products' buy links' variant uuids. */
  variantUuids: string[];
  usageItemIds: number[];
}

async function call<T>(
  server: Server,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  contentType = 'application/vnd.api+json',
): Promise<T> {
  const init: RequestInit = { method, headers: auth(server.apiKey) };
  if (body !== undefined) {
    init.headers = { ...auth(server.apiKey), 'Content-Type': contentType };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, init);
  const text = await response.text();
  if (response.status >= 300)
    throw new Error(
      `${server.name}: ${method} ${path}: ${response.status} ${text}`,
    );
  return JSON.parse(text) as T;
}

type Resource = { id: string; attributes: Record<string, unknown> };

/** `work(0…count-1)`, `concurrency` at a time. */
async function pool<T>(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await work(i);
    }),
  );
  return results;
}

const uuidOf = (buyNowUrl: unknown) =>
  String(buyNowUrl)
    .replace(/.*\/checkout\/buy\//, '')
    .replace(/\?.*/, '');

/** A purchase on the server's JSON checkout path; the new order's id. */
async function buy(server: Server, uuid: string, buyer: number) {
  const order = await call<{ data: { id: string } }>(
    server,
    'POST',
    `/checkout/buy/${uuid}`,
    {
      email: `embedded-buyer-${buyer}@bench.test`,
      name: `Embedded Buyer ${buyer}`,
      billing_address: { country: 'US', zip: '10001' },
      card_number: GOOD_CARD,
    },
    'application/json',
  );
  return order.data.id;
}

/**
 * The same catalog, orders and metered subscriptions on each server,
 * through its API as a client would make them (and the demo's usage-based
 * product, which both servers' demo seed made).
 */
async function seedThroughApi(server: Server): Promise<Seeded> {
  const started = Date.now();
  // The demo's products, before the seeded ones fill the first page.
  const demo = await call<{ data: Resource[] }>(
    server,
    'GET',
    `/v1/products?filter%5Bstore_id%5D=${server.storeId}&page%5Bsize%5D=100`,
  );
  const metered = demo.data.find((p) => p.attributes.slug === 'api-usage');
  if (!metered) throw new Error(`${server.name}: no demo usage-based product`);
  const products = await pool(SEED.products, 4, async (i) => {
    const product = await call<{ data: Resource }>(
      server,
      'POST',
      '/v1/products',
      {
        data: {
          type: 'products',
          attributes: {
            name: `Embedded bench product ${i}`,
            description: `<p>Benchmark product number ${i}.</p>`,
            status: 'published',
          },
          relationships: {
            store: { data: { type: 'stores', id: String(server.storeId) } },
          },
        },
      },
    );
    const variants = await call<{ data: Resource[] }>(
      server,
      'GET',
      `/v1/variants?filter%5Bproduct_id%5D=${product.data.id}`,
    );
    await call(server, 'POST', '/v1/prices', {
      data: {
        type: 'prices',
        attributes: { category: 'one_time', unit_price: 500 + (i % 50) * 100 },
        relationships: {
          variant: { data: { type: 'variants', id: variants.data[0].id } },
        },
      },
    });
    const read = await call<{ data: Resource }>(
      server,
      'GET',
      `/v1/products/${product.data.id}`,
    );
    return { id: read.data.id, uuid: uuidOf(read.data.attributes.buy_now_url) };
  });
  await pool(SEED.orders, 4, (i) =>
    buy(server, products[i % products.length].uuid, i),
  );
  const meteredUuid = uuidOf(metered.attributes.buy_now_url);
  const usageItemIds = await pool(SEED.subscriptions, 4, async (i) => {
    const orderId = await buy(server, meteredUuid, SEED.orders + i);
    const subscriptions = await call<{ data: Resource[] }>(
      server,
      'GET',
      `/v1/subscriptions?filter%5Border_id%5D=${orderId}`,
    );
    const item = subscriptions.data[0].attributes.first_subscription_item as {
      id: number;
    };
    return item.id;
  });
  log(
    `${server.name}: ${SEED.products} products, ${SEED.orders} orders and ${SEED.subscriptions} metered subscriptions through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    productIds: products.map((p) => p.id),
    variantUuids: products.map((p) => p.uuid),
    usageItemIds,
  };
}

const NOTE = 'baseline columns: Zest on PostgreSQL, same seed';

function compared(
  name: string,
  embedded: Measured,
  postgres: Measured,
  minRatio: number | undefined,
  extra: { ok: boolean; note?: string } = { ok: true },
) {
  const ratio = embedded.requestsPerSecond / postgres.requestsPerSecond;
  const clean = (m: Measured) => m.errors + m.timeouts + m.non2xx === 0;
  addRow({
    name: `embedded (PGlite, npm start): ${name}`,
    zest: embedded,
    baseline: postgres,
    budget:
      minRatio === undefined
        ? 'ratio reported; no errors'
        : `≥ ${minRatio.toFixed(2)}× PostgreSQL`,
    pass:
      (minRatio === undefined || ratio >= minRatio) &&
      clean(embedded) &&
      clean(postgres) &&
      extra.ok,
    note: extra.note ? `${NOTE}; ${extra.note}` : NOTE,
  });
}

/**
 * The embedded-default rows: Zest as `npm start` runs it (PGlite, the
 * workers in the API process) against a PostgreSQL + Redis twin started as
 * the main run starts Zest, both seeded the same way through their APIs;
 * each row alternates the two (A B A B …) and reports the ratio.
 */
export async function embeddedRows() {
  const servers: Server[] = [];
  try {
    const embedded = await startEmbedded();
    servers.push(embedded);
    const postgres = await startTwin();
    servers.push(postgres);
    const [e, p] = [
      await seedThroughApi(embedded),
      await seedThroughApi(postgres),
    ];
    const side = (server: Server, paths: string[]) => ({
      spec: getSpec(server.port, paths, server.apiKey),
      process: server.process,
    });

    const products = await alternate(
      side(
        embedded,
        e.productIds.map((id) => `/v1/products/${id}`),
      ),
      side(
        postgres,
        p.productIds.map((id) => `/v1/products/${id}`),
      ),
    );
    compared(
      `GET /v1/products/:id (${SEED.products} products)`,
      products.a,
      products.b,
      0.3,
    );
    const page = (server: Server) =>
      `/v1/orders?filter%5Bstore_id%5D=${server.storeId}&page%5Bsize%5D=10`;
    const orders = await alternate(
      side(embedded, [page(embedded)]),
      side(postgres, [page(postgres)]),
    );
    compared(
      `GET /v1/orders (store filter, page 1 of ${SEED.orders + SEED.subscriptions} orders)`,
      orders.a,
      orders.b,
      0.3,
    );
    const buys = await alternate(
      {
        spec: purchaseSpec(embedded.port, e.variantUuids),
        process: embedded.process,
      },
      {
        spec: purchaseSpec(postgres.port, p.variantUuids),
        process: postgres.process,
      },
    );
    compared(
      'POST /checkout/buy/:uuid (JSON purchase, 16 conn.)',
      buys.a,
      buys.b,
      undefined,
    );
    await usage(
      { ...embedded, itemIds: e.usageItemIds },
      { ...postgres, itemIds: p.usageItemIds },
    );
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

/** Single usage records, A B A B …, each run's totals checked exact. */
async function usage(embedded: UsageTarget, postgres: UsageTarget) {
  const amount = QUICK ? 1_000 : 10_000;
  const runs = { embedded: [] as Measured[], postgres: [] as Measured[] };
  const wrong: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, target] of [
      ['embedded', embedded],
      ['postgres', postgres],
    ] as const) {
      const run = await singleRecords(target, amount);
      runs[name].push(run.result);
      if (!run.exact) wrong.push(`${name}: ${run.note}`);
    }
  }
  compared(
    `POST /v1/usage-records (increment, ${embedded.itemIds.length} items, 50 conn.)`,
    medianOf(runs.embedded),
    medianOf(runs.postgres),
    undefined,
    {
      ok: wrong.length === 0,
      note: wrong.length === 0 ? 'totals exact on both' : wrong.join('; '),
    },
  );
}
