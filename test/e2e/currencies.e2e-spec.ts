import request from 'supertest';
import { DataSource } from 'typeorm';
import { SHIPPED_RATES } from '../../src/modules/currency/shipped-rates';
import { usdPerUnit } from '../../src/modules/currency/usd-rates';
import { StoreService } from '../../src/modules/store/store.service';
import { buy, buyNowUrl, pathOf } from '../support/commerce';
import { ecbDocument, startEcbStandIn } from '../support/ecb-stand-in';
import { createMerchant, createPricedProduct } from '../support/factories';
import { eventually } from '../support/processes';
import { startTestApp, TestApp } from '../support/test-app';
import {
  CapturingLogger,
  startTestWorker,
  TestWorker,
} from '../support/worker';

const shipped = (currency: string) =>
  usdPerUnit(SHIPPED_RATES.unitsPerUsd[currency]);

describe('selling in any currency', () => {
  let t: TestApp;
  let worker: TestWorker;
  let ecb: Awaited<ReturnType<typeof startEcbStandIn>>;
  const logs = new CapturingLogger();
  let key: string;
  const stores: Record<string, number> = {};
  const variants: Record<string, string> = {};
  const products: Record<string, string> = {};

  const api = () => ({
    post: (path: string, body: unknown) =>
      request(t.baseUrl)
        .post(path)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(JSON.stringify(body)),
    patch: (path: string, body: unknown) =>
      request(t.baseUrl)
        .patch(path)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(JSON.stringify(body)),
  });

  const checkout = (currency: string, preview: boolean) =>
    api()
      .post('/v1/checkouts', {
        data: {
          type: 'checkouts',
          attributes: { preview },
          relationships: {
            store: { data: { type: 'stores', id: String(stores[currency]) } },
            variant: { data: { type: 'variants', id: variants[currency] } },
          },
        },
      })
      .expect(201);

  const previewRate = async (currency: string): Promise<number> =>
    (await checkout(currency, true)).body.data.attributes.preview
      .currency_rate as number;

  const rateDateOf = async (orderId: string): Promise<string | null> => {
    const [row] = (await t.app
      .get(DataSource)
      .query(
        `SELECT currency_rate_date::text AS date FROM orders WHERE id = $1`,
        [Number(orderId)],
      )) as { date: string | null }[];
    return row.date;
  };

  const storedDays = async (): Promise<string[]> =>
    (
      (await t.app
        .get(DataSource)
        .query(
          `SELECT DISTINCT rate_date::text AS date FROM exchange_rates ORDER BY 1`,
        )) as { date: string }[]
    ).map((row) => row.date);

  /** Lets the scheduled job run `runs` more times against the stand-in. */
  const scheduledRuns = async (runs: number) => {
    const target = ecb.state.requests + runs;
    await eventually(
      () => Promise.resolve(ecb.state.requests >= target ? true : undefined),
      `${runs} more scheduled fetches`,
    );
  };

  /** Waits for a warning containing `text` logged after line `since`. */
  const warned = (text: string, since: number) =>
    eventually(
      () =>
        Promise.resolve(
          logs.lines
            .slice(since)
            .some((line) => line.startsWith('warn') && line.includes(text))
            ? true
            : undefined,
        ),
      `a warning containing "${text}"`,
    );

  beforeAll(async () => {
    ecb = await startEcbStandIn();
    t = await startTestApp({
      CURRENCY_RATES: '{"GBP":1.5}',
      CURRENCY_RATES_URL: ecb.url,
      CURRENCY_RATES_REFRESH_INTERVAL_MS: '300',
      CURRENCY_RATES_TIMEOUT_MS: '500',
    });
    t.app.useLogger(logs);
    worker = await startTestWorker(t, logs);
    const merchant = await createMerchant(t.app);
    key = merchant.testKey;
    // As `npm run cli -- stores:create --currency EUR` does.
    const euro = await t.app
      .get(StoreService)
      .create({ userId: merchant.userId, name: 'Euro Shop', currency: 'EUR' });
    stores.EUR = euro.id;
    for (const currency of ['JPY', 'GBP']) {
      const created = await api()
        .post('/v1/stores', {
          data: {
            type: 'stores',
            attributes: { name: `${currency} Shop`, currency },
          },
        })
        .expect(201);
      stores[currency] = Number(created.body.data.id);
    }
    for (const [currency, unitPrice] of [
      ['EUR', 1999],
      ['JPY', 500],
      ['GBP', 1000],
    ] as const) {
      const priced = await createPricedProduct(
        t.baseUrl,
        key,
        stores[currency],
        {
          unit_price: unitPrice,
        },
      );
      variants[currency] = priced.variantId;
      products[currency] = priced.product.id;
    }
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await ecb?.close();
  });

  it('sells in EUR on a fresh install, at the shipped table’s rate, while the source is down', async () => {
    await scheduledRuns(1);
    await warned('source unavailable (it answered 503)', 0);
    expect(await storedDays()).toEqual([]);
    const rate = shipped('EUR');
    expect(rate).toBeGreaterThan(0);

    const previewed = await checkout('EUR', true);
    expect(previewed.body.data.attributes.preview).toEqual({
      currency: 'EUR',
      currency_rate: rate,
      subtotal: 1999,
      discount_total: 0,
      tax: 0,
      setup_fee: 0,
      total: 1999,
      subtotal_usd: Math.round(19.99 * rate * 100),
      discount_total_usd: 0,
      tax_usd: 0,
      setup_fee_usd: 0,
      total_usd: Math.round(19.99 * rate * 100),
      subtotal_formatted: '€19.99',
      discount_total_formatted: '€0.00',
      tax_formatted: '€0.00',
      setup_fee_formatted: '€0.00',
      total_formatted: '€19.99',
    });

    const plain = await checkout('EUR', false);
    expect(plain.body.data.attributes.preview).toBe(false);
    const bought = await buy(t.baseUrl, plain.body.data.attributes.url).expect(
      201,
    );
    const order = bought.body.data;
    expect(order.attributes).toMatchObject({
      status: 'paid',
      currency: 'EUR',
      currency_rate: rate,
      total: 1999,
      total_usd: Math.round(19.99 * rate * 100),
      subtotal_usd: Math.round(19.99 * rate * 100),
      total_formatted: '€19.99',
    });
    expect(await rateDateOf(order.id)).toBe(SHIPPED_RATES.date);
  });

  it('sells in JPY, a currency without minor units', async () => {
    const rate = shipped('JPY');
    const usd = Math.round(500 * rate * 100);
    const previewed = await checkout('JPY', true);
    expect(previewed.body.data.attributes.preview).toMatchObject({
      currency: 'JPY',
      currency_rate: rate,
      subtotal: 500,
      total: 500,
      subtotal_usd: usd,
      total_usd: usd,
      total_formatted: '¥500',
    });

    const url = await buyNowUrl(t.baseUrl, key, products.JPY);
    const page = await request(t.baseUrl).get(pathOf(url)).expect(200);
    expect(page.text).toContain('¥500');
    const bought = await buy(t.baseUrl, url).expect(201);
    expect(bought.body.data.attributes).toMatchObject({
      currency: 'JPY',
      currency_rate: rate,
      total: 500,
      total_usd: usd,
      total_formatted: '¥500',
    });
    expect(await rateDateOf(bought.body.data.id)).toBe(SHIPPED_RATES.date);
  });

  it('uses a CURRENCY_RATES entry over every other rate, without a date', async () => {
    const previewed = await checkout('GBP', true);
    expect(previewed.body.data.attributes.preview).toMatchObject({
      currency: 'GBP',
      currency_rate: 1.5,
      total: 1000,
      total_usd: 1500,
    });
    const plain = await checkout('GBP', false);
    const bought = await buy(t.baseUrl, plain.body.data.attributes.url).expect(
      201,
    );
    expect(bought.body.data.attributes.currency_rate).toBe(1.5);
    expect(await rateDateOf(bought.body.data.id)).toBeNull();
  });

  it.each([
    ['XSU', 'No USD exchange rate is known for XSU'],
    ['ABC', 'ISO 4217'],
  ])('refuses a store in %s with 422 at currency', async (currency, detail) => {
    const created = await api()
      .post('/v1/stores', {
        data: { type: 'stores', attributes: { name: 'Nowhere', currency } },
      })
      .expect(422);
    expect(created.body.errors[0].source.pointer).toBe(
      '/data/attributes/currency',
    );
    expect(created.body.errors[0].detail).toContain(detail);
    const changed = await api()
      .patch(`/v1/stores/${stores.EUR}`, {
        data: {
          type: 'stores',
          id: String(stores.EUR),
          attributes: { currency },
        },
      })
      .expect(422);
    expect(changed.body.errors[0].source.pointer).toBe(
      '/data/attributes/currency',
    );
  });

  it('refreshes from the ECB document on schedule, converting euro-based rates to USD', async () => {
    ecb.state.behaviour = {
      kind: 'document',
      body: ecbDocument('2026-11-20', {
        USD: '1.2500',
        JPY: '200.00',
        GBP: '0.8000',
      }),
    };
    await eventually(
      async () =>
        (await storedDays()).includes('2026-11-20') ? true : undefined,
      'the fetched day to be stored',
    );
    expect(await previewRate('EUR')).toBe(1.25);
    expect(await previewRate('JPY')).toBe(0.00625);
    // The operator's entry still wins over the fetched 1.5625.
    expect(await previewRate('GBP')).toBe(1.5);

    const previewed = await checkout('JPY', true);
    expect(previewed.body.data.attributes.preview).toMatchObject({
      total: 500,
      total_usd: 313,
    });
    const plain = await checkout('EUR', false);
    const bought = await buy(t.baseUrl, plain.body.data.attributes.url).expect(
      201,
    );
    expect(bought.body.data.attributes).toMatchObject({
      currency_rate: 1.25,
      total_usd: 2499,
    });
    expect(await rateDateOf(bought.body.data.id)).toBe('2026-11-20');
  });

  it('keeps the last fetched rates through an outage and retries on the next run', async () => {
    ecb.state.behaviour = { kind: 'down' };
    const since = logs.lines.length;
    await scheduledRuns(2);
    await warned('source unavailable (it answered 503)', since);
    expect(await storedDays()).toEqual(['2026-11-20']);
    expect(await previewRate('EUR')).toBe(1.25);
  });

  it('gives up on a source that does not answer within CURRENCY_RATES_TIMEOUT_MS', async () => {
    ecb.state.behaviour = { kind: 'hang' };
    const since = logs.lines.length;
    await scheduledRuns(2);
    await warned('no answer within 500 ms', since);
    expect(await storedDays()).toEqual(['2026-11-20']);
    expect(await previewRate('EUR')).toBe(1.25);
  });

  it('refuses a malformed document and writes nothing of it', async () => {
    const good = ecbDocument('2026-11-21', { USD: '1.3000', JPY: '210.00' });
    ecb.state.behaviour = {
      kind: 'document',
      // A day whose JPY quote is garbage: none of the day may be stored.
      body: good.replace("rate='210.00'", "rate='N/A'"),
    };
    let since = logs.lines.length;
    await scheduledRuns(2);
    await warned('document refused (Bad rate for JPY: N/A)', since);
    ecb.state.behaviour = { kind: 'document', body: good.slice(0, 300) };
    since = logs.lines.length;
    await scheduledRuns(2);
    await warned('document refused (The document is not a complete', since);
    expect(await storedDays()).toEqual(['2026-11-20']);
    expect(await previewRate('EUR')).toBe(1.25);

    ecb.state.behaviour = { kind: 'document', body: good };
    await eventually(
      async () =>
        (await storedDays()).includes('2026-11-21') ? true : undefined,
      'the next good day to be stored',
    );
    expect(await previewRate('EUR')).toBe(1.3);
  });
});
