import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  generateOrderInvoice,
  generateSubscriptionInvoice,
} from '@lemonsqueezy/lemonsqueezy.js';
import request from 'supertest';
import { buySubscription } from '../support/billing';
import { buy, buyNowUrl } from '../support/commerce';
import { createPricedProduct } from '../support/factories';
import { pdfToText, pollInvoice } from '../support/invoices';
import {
  eventually,
  runCli,
  spawnZest,
  startZestWorker,
  terminate,
  waitForReady,
  ZestProcess,
} from '../support/processes';
import { useSdkAgainst } from '../support/sdk';
import {
  createTestDatabase,
  freePort,
  TEST_APP_KEY,
} from '../support/test-app';

const withServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

/** A buyer no log line could mention by chance. */
const BUYER = {
  name: 'Quillon Vantablack',
  email: 'quillon.vantablack@pii-probe.example',
  company: 'Quillon Vantablack Holdings',
  address: '77 Obsidian Quay',
  city: 'Zxyborough',
  state: 'Wexshire',
  zip: 'ZE9 9QV',
  notes: 'PO-QV-5521 attn Marisol Penwright',
};

/**
 * What must not appear, lower-cased: each word of the details (so that any
 * encoding of a whole value, `+` or `%20` between words, is caught) and the
 * zip code in its spellings.
 */
const NEEDLES = [
  'quillon',
  'vantablack',
  'pii-probe',
  'obsidian',
  'zxyborough',
  'wexshire',
  'ze9 9qv',
  'ze9+9qv',
  'ze9%209qv',
  'po-qv-5521',
  'marisol',
  'penwright',
];

const leaks = (text: string) =>
  NEEDLES.filter((needle) => text.toLowerCase().includes(needle));

/**
 * The built API (and, against PostgreSQL and Redis, the built worker) at
 * LOG_LEVEL=trace: their stdout and stderr are everything the app logs. A
 * buyer purchases, the merchant generates order and subscription invoices
 * for them (query string, JSON:API body, refused requests) and the links
 * are downloaded; no log line and no link may name the buyer.
 */
describe(`buyer details in links and logs (${withServices ? 'API and worker processes' : 'embedded'})`, () => {
  let api: ZestProcess;
  let worker: ZestProcess | undefined;
  let baseUrl: string;
  let dataDir: string;
  let database: { url: string | null; drop: () => Promise<void> } | undefined;
  let key: string;
  let storeId: number;
  let restoreFetch: (() => void) | undefined;
  const prefix = `zest-privacy-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zest-privacy-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      APP_KEY: TEST_APP_KEY,
      DATA_DIR: dataDir,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'trace',
      HOST: '127.0.0.1',
    };
    if (withServices) {
      database = await createTestDatabase();
      env.DATABASE_URL = database.url!;
      env.REDIS_URL = process.env.REDIS_URL!;
      await runCli(env, ['migrate']);
      const seed = await runCli(env, ['seed:demo']);
      key = seed.api_key as string;
      storeId = seed.store_id as number;
    }
    api = spawnZest('main', {
      ...env,
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      HEALTH_PORT: String(await freePort()),
    });
    // The worker and the API start side by side, as their containers do.
    [worker] = await Promise.all([
      withServices ? startZestWorker(env) : undefined,
      waitForReady(api, `${baseUrl}/health/ready`, 60_000),
    ]);
    if (!withServices) {
      // The embedded quickstart seeds a demo store and keeps its key here.
      key = await eventually(
        // async: a missing file must reject, which eventually() retries.
        async () =>
          readFileSync(join(dataDir, 'demo-api-key'), 'utf8').trim() ||
          undefined,
        'the demo API key',
      );
      const stores = await request(baseUrl)
        .get('/v1/stores')
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      storeId = Number((stores.body as { data: { id: string }[] }).data[0].id);
    }
    restoreFetch = useSdkAgainst(baseUrl, key);
  }, 120_000);

  afterAll(async () => {
    restoreFetch?.();
    await Promise.all([api, worker].filter(Boolean).map((p) => terminate(p!)));
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const logs = () => `${api.output()}\n${worker?.output() ?? ''}`;
  const post = (path: string) =>
    request(baseUrl)
      .post(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');
  const linkOf = (meta: unknown) =>
    (meta as { urls: { download_invoice: string } }).urls.download_invoice;

  it('names no buyer detail in any link or log line', async () => {
    const buyer = {
      name: BUYER.name,
      email: BUYER.email,
      billing_address: { country: 'GB', zip: BUYER.zip },
    };
    const { product } = await createPricedProduct(
      baseUrl,
      key,
      storeId,
      { unit_price: 2500 },
      { name: 'Privacy Plan' },
    );
    const purchase = await buy(
      baseUrl,
      await buyNowUrl(baseUrl, key, product.id),
      buyer,
    );
    expect(purchase.status).toBe(201);
    const orderId = (purchase.body as { data: { id: string } }).data.id;
    const { subscription } = await buySubscription(
      baseUrl,
      key,
      storeId,
      { unit_price: 900 },
      buyer,
      { name: 'Privacy Subscription' },
    );
    const invoices = await request(baseUrl)
      .get(
        `/v1/subscription-invoices?filter[subscription_id]=${subscription.id}`,
      )
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    const invoiceId = (invoices.body as { data: { id: string }[] }).data[0].id;

    const links: string[] = [];
    // The SDK: the details in the query string.
    const order = await generateOrderInvoice(orderId, {
      name: BUYER.company,
      address: BUYER.address,
      city: BUYER.city,
      state: BUYER.state,
      zipCode: BUYER.zip as unknown as number,
      country: 'GB',
      notes: BUYER.notes,
    });
    expect(order.error).toBeNull();
    links.push(linkOf(order.data!.meta));
    const subscriptionInvoice = await generateSubscriptionInvoice(invoiceId, {
      name: BUYER.company,
      address: BUYER.address,
      city: BUYER.city,
      zipCode: BUYER.zip as unknown as number,
      country: 'GB',
    });
    expect(subscriptionInvoice.error).toBeNull();
    links.push(linkOf(subscriptionInvoice.data!.meta));
    // A JSON:API body.
    const fromBody = await post(`/v1/orders/${orderId}/generate-invoice`)
      .set('Content-Type', 'application/vnd.api+json')
      .send({
        data: {
          type: 'orders',
          attributes: { name: BUYER.name, notes: BUYER.notes },
        },
      })
      .expect(200);
    links.push(linkOf(fromBody.body.meta));
    // Refused requests that carry the details.
    await post(
      `/v1/orders/${orderId}/generate-invoice?name=${encodeURIComponent(`${BUYER.company} ${'x'.repeat(300)}`)}`,
    ).expect(422);
    await post(
      `/v1/orders/${orderId}/generate-invoice?name=${encodeURIComponent(BUYER.name)}&attention=${encodeURIComponent(BUYER.name)}`,
    ).expect(400);
    await post(
      `/v1/orders/999999/generate-invoice?name=${encodeURIComponent(BUYER.name)}`,
    ).expect(404);

    for (const link of links) {
      expect(leaks(decodeURIComponent(link))).toEqual([]);
      expect([...new URL(link).searchParams.keys()]).toEqual([
        'bill_to',
        'owner',
        'mode',
        'signature',
      ]);
      const url = new URL(link);
      await request(baseUrl)
        .get(url.pathname + url.search.replace(/bill_to=[^&]+&/, ''))
        .expect(403);
    }
    // The details did reach the PDFs.
    const texts = await Promise.all(
      links.map(async (link) => pdfToText((await pollInvoice(link)).pdf)),
    );
    expect(texts[0]).toContain(BUYER.company);
    expect(texts[0]).toContain(BUYER.address);
    expect(texts[0]).toContain('PO-QV-5521');
    expect(texts[1]).toContain(BUYER.city);
    expect(texts[2]).toContain(BUYER.name);

    // Every line is out once the last request's own line is.
    await request(baseUrl)
      .get('/v1/stores')
      .set('Authorization', `Bearer ${key}`)
      .set('X-Request-Id', 'privacy-last')
      .expect(200);
    await eventually(
      () => Promise.resolve(logs().includes('privacy-last') ? true : undefined),
      'the last access log line',
    );
    const output = logs();
    // The requests that carried the details were logged, with them redacted.
    expect(output).toContain(
      `/v1/orders/${orderId}/generate-invoice?name=[Redacted]`,
    );
    expect(output).toContain(`/invoices/orders/${orderId}?bill_to=[Redacted]`);
    expect(leaks(output)).toEqual([]);
  }, 120_000);
});
