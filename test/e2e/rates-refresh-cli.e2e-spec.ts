import { DataSource } from 'typeorm';
import { StoreService } from '../../src/modules/store/store.service';
import { ExchangeRates } from '../../src/modules/currency/exchange-rates.service';
import { SHIPPED_RATES } from '../../src/modules/currency/shipped-rates';
import { usdPerUnit } from '../../src/modules/currency/usd-rates';
import {
  ecbDocument,
  EcbStandIn,
  startEcbStandIn,
} from '../support/ecb-stand-in';
import { buy, buyNowUrl } from '../support/commerce';
import { createMerchant, createPricedProduct } from '../support/factories';
import { runCli, spawnZest } from '../support/processes';
import { startTestApp, TEST_APP_KEY, TestApp } from '../support/test-app';

const withDatabase = Boolean(process.env.DATABASE_URL);
const describeWithDatabase = withDatabase ? describe : describe.skip;

/**
 * `npm run cli -- rates:refresh`: the built CLI, as its own process, against
 * PostgreSQL and a local ECB stand-in (needs `npm run build`).
 */
describeWithDatabase('rates:refresh (CLI)', () => {
  let t: TestApp;
  let ecb: EcbStandIn;
  let env: Record<string, string>;
  let key: string;
  const products: Record<string, string> = {};

  /** Buys the product priced in `currency`: the order's frozen rate and its day. */
  const purchase = async (currency: string) => {
    const url = await buyNowUrl(t.baseUrl, key, products[currency]);
    const bought = await buy(t.baseUrl, url).expect(201);
    const [row] = (await t.app.get(DataSource).query(
      `SELECT currency_rate::float8 AS rate, currency_rate_date::text AS date
           FROM orders WHERE id = $1`,
      [Number(bought.body.data.id)],
    )) as { rate: number; date: string | null }[];
    expect(bought.body.data.attributes.currency_rate).toBe(row.rate);
    return row;
  };

  const storedDays = async (): Promise<string[]> =>
    (
      (await t.app
        .get(DataSource)
        .query(
          `SELECT DISTINCT rate_date::text AS date FROM exchange_rates ORDER BY 1`,
        )) as { date: string }[]
    ).map((row) => row.date);

  /** Runs the command expecting a failure; resolves with its exit code and output. */
  const failing = async (args: string[], extraEnv = {}) => {
    const cli = spawnZest('cli', { ...env, ...extraEnv }, [
      'rates:refresh',
      ...args,
      '--json',
    ]);
    const code = await cli.exited;
    return { code, output: cli.output() };
  };

  beforeAll(async () => {
    ecb = await startEcbStandIn();
    t = await startTestApp({ CURRENCY_RATES: '{"CHF":1.4}' });
    env = {
      DATABASE_URL: t.config.database.url!,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: t.config.queue.prefix,
      APP_KEY: TEST_APP_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      CURRENCY_RATES_URL: ecb.url,
      CURRENCY_RATES_TIMEOUT_MS: '500',
    };
    const merchant = await createMerchant(t.app);
    key = merchant.testKey;
    for (const currency of ['EUR', 'GBP', 'JPY']) {
      const store = await t.app.get(StoreService).create({
        userId: merchant.userId,
        name: `${currency} Shop`,
        currency,
      });
      const priced = await createPricedProduct(t.baseUrl, key, store.id, {
        unit_price: 1000,
      });
      products[currency] = priced.product.id;
    }
  });
  afterAll(async () => {
    await t?.close();
    await ecb?.close();
  });

  it('refuses a --url that is not an http(s) URL (exit 2), fetching nothing', async () => {
    const result = await failing(['--url', 'ftp://example.com/rates.xml']);
    expect(result.code).toBe(2);
    expect(result.output).toContain('--url must be an http(s) URL');
    expect(ecb.state.requests).toBe(0);
  });

  it('exits 1 and stores nothing while the source is down; the shipped rate stays', async () => {
    ecb.state.behaviour = { kind: 'down' };
    const result = await failing([]);
    expect(result.code).toBe(1);
    expect(result.output).toContain('source unavailable (it answered 503)');
    expect(ecb.state.requests).toBe(1);
    expect(await storedDays()).toEqual([]);
    expect(await t.app.get(ExchangeRates).find('EUR')).toEqual({
      currency: 'EUR',
      rate: usdPerUnit(SHIPPED_RATES.unitsPerUsd.EUR),
      date: SHIPPED_RATES.date,
      origin: 'shipped',
    });
  });

  it('fetches the day now and stores it: the next purchases in EUR, GBP and JPY freeze its rates and date', async () => {
    ecb.state.behaviour = {
      kind: 'document',
      body: ecbDocument('2026-11-24', {
        USD: '1.2000',
        JPY: '180.00',
        GBP: '0.8000',
        CHF: '0.9600',
      }),
    };
    const result = await runCli(env, ['rates:refresh']);
    expect(result).toEqual({ date: '2026-11-24', currencies: 4, url: ecb.url });
    expect(await storedDays()).toEqual(['2026-11-24']);
    const rates = t.app.get(ExchangeRates);
    // USD per unit: EUR = the USD quote; X = USD quote / X quote.
    expect(await rates.find('EUR')).toMatchObject({
      rate: 1.2,
      date: '2026-11-24',
      origin: 'fetched',
    });
    expect(await rates.find('GBP')).toMatchObject({
      rate: 1.5,
      date: '2026-11-24',
      origin: 'fetched',
    });
    expect(await rates.find('JPY')).toMatchObject({
      rate: 0.0066666667,
      date: '2026-11-24',
      origin: 'fetched',
    });
    // Stored (1.25 USD per CHF), but CURRENCY_RATES wins, with no date.
    expect(await rates.find('CHF')).toEqual({
      currency: 'CHF',
      rate: 1.4,
      date: null,
      origin: 'override',
    });
    const [chf] = (await t.app
      .get(DataSource)
      .query(
        `SELECT rate::text AS rate FROM exchange_rates WHERE currency = 'CHF'`,
      )) as { rate: string }[];
    expect(Number(chf.rate)).toBe(1.25);

    // Each purchase freezes the fetched rate and the day it is for.
    expect(await purchase('EUR')).toEqual({ rate: 1.2, date: '2026-11-24' });
    expect(await purchase('GBP')).toEqual({ rate: 1.5, date: '2026-11-24' });
    expect(await purchase('JPY')).toEqual({
      rate: 0.0066666667,
      date: '2026-11-24',
    });
  });

  it('keeps the stored day when the source is too slow or its document is refused', async () => {
    ecb.state.behaviour = { kind: 'hang' };
    const slow = await failing([]);
    expect(slow.code).toBe(1);
    expect(slow.output).toContain('no answer within 500 ms');

    ecb.state.behaviour = {
      kind: 'document',
      body: ecbDocument('2026-11-25', { USD: '1.3000', JPY: '1,80' }),
    };
    const refused = await failing([]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('document refused');

    ecb.state.behaviour = {
      kind: 'document',
      body: ecbDocument('2026-11-25', { USD: '1.3000' }).slice(0, 300),
    };
    expect((await failing([])).code).toBe(1);

    expect(await storedDays()).toEqual(['2026-11-24']);
    expect(await t.app.get(ExchangeRates).find('EUR')).toMatchObject({
      rate: 1.2,
      date: '2026-11-24',
    });
  });

  it('fetches from --url rather than CURRENCY_RATES_URL; a currency the new day lacks keeps its newest stored rate', async () => {
    ecb.state.behaviour = {
      kind: 'document',
      body: ecbDocument('2026-11-25', { USD: '1.1000', GBP: '0.8800' }),
    };
    const before = ecb.state.requests;
    const result = await runCli(
      { ...env, CURRENCY_RATES_URL: 'http://127.0.0.1:9/nothing-here' },
      ['rates:refresh', '--url', ecb.url],
    );
    expect(result).toEqual({ date: '2026-11-25', currencies: 2, url: ecb.url });
    expect(ecb.state.requests).toBe(before + 1);
    expect(await storedDays()).toEqual(['2026-11-24', '2026-11-25']);
    expect(await t.app.get(ExchangeRates).find('EUR')).toMatchObject({
      rate: 1.1,
      date: '2026-11-25',
    });
    // JPY was not quoted that day: its newest stored rate stands.
    expect(await t.app.get(ExchangeRates).find('JPY')).toMatchObject({
      date: '2026-11-24',
    });
  });
});
