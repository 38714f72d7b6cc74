import request from 'supertest';
import { buySubscription, freezeClock } from '../support/billing';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
  updateStore,
} from '../support/factories';
import { runCli } from '../support/processes';
import { startTestApp, TestApp, TEST_APP_KEY } from '../support/test-app';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { ExchangeRateRepository } from '../../src/modules/currency/exchange-rate.repository';

interface Row {
  country: string | null;
  region: string | null;
  tax_name: string | null;
  tax_rate: number;
  reverse_charge: boolean;
  currency: string;
  sales: number;
  refunds: number;
  taxable_amount: number;
  tax: number;
  refunded_taxable_amount: number;
  refunded_tax: number;
  net_taxable_amount: number;
  net_tax: number;
  net_taxable_amount_eur: number | null;
  net_tax_eur: number | null;
}

interface OrderAttributes {
  created_at: string;
  status: string;
  tax: number;
  tax_rate: number;
  total: number;
  refunded_tax: number;
  tax_evidence: { billing_country: string | null };
}

const at = (iso: string) => new Date(iso);

/** A CSV line's cells (RFC 4180 quoting). */
function cells(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cell);
      cell = '';
    } else cell += c;
  }
  out.push(cell);
  return out;
}

/**
 * A French store selling a €10.00 e-service in Q3 2026 to consumers in
 * Germany, France and the UK, a Texan and a Californian, a German business
 * (reverse charge), and a German subscriber renewed in August; a partial
 * refund in July and a full one in October. The Q3 report equals, per
 * country, what the orders and invoices APIs say (sales of the quarter less
 * the refunds made in it); the October refund lands in Q4.
 */
describe('tax reports', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let storeId: number;
  let setNow: (instant: Date) => void;
  /** refunded_tax given back by each refund, by the quarter it was made in. */
  const refundedTaxIn: Record<string, Record<string, number>> = {};

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    merchant = await createMerchant(t.app, [
      'Boutique Numérique',
      'Dollar Shop',
    ]);
    other = await createMerchant(t.app, ['Other Shop']);
    storeId = merchant.stores[0].id;
    setNow = freezeClock(t.app, at('2026-07-10T12:00:00Z'));
    await updateStore(t.baseUrl, merchant.testKey, storeId, {
      country: 'FR',
      currency: 'EUR',
    }).expect(200);
  });
  afterAll(async () => {
    await t.close();
  });

  function api(key = merchant.testKey) {
    const bearer = (r: request.Test) => r.set('Authorization', `Bearer ${key}`);
    return {
      get: (path: string) => bearer(request(t.baseUrl).get(path)),
      post: (path: string) => bearer(request(t.baseUrl).post(path)),
    };
  }

  const report = (period: string, key?: string, store = storeId) =>
    api(key).get(
      `/v1/tax-reports?filter[store_id]=${store}&filter[period]=${period}`,
    );

  async function refund(orderId: string, amount: number, quarter: string) {
    const before = (await order(orderId)).refunded_tax;
    const response = await api()
      .post(`/v1/orders/${orderId}/refund`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: orderId, attributes: { amount } },
        }),
      )
      .expect(200);
    const after = (response.body.data.attributes as OrderAttributes)
      .refunded_tax;
    const country = (await order(orderId)).tax_evidence.billing_country!;
    refundedTaxIn[quarter] ??= {};
    refundedTaxIn[quarter][country] =
      (refundedTaxIn[quarter][country] ?? 0) + after - before;
  }

  async function order(id: string): Promise<OrderAttributes> {
    const response = await api().get(`/v1/orders/${id}`).expect(200);
    return response.body.data.attributes as OrderAttributes;
  }

  /** Net tax per country of a quarter, from the orders and subscription-invoices APIs alone. */
  async function expectedNetTax(
    from: string,
    to: string,
    quarter: string,
  ): Promise<Record<string, number>> {
    const net: Record<string, number> = {};
    const orders = await api()
      .get(`/v1/orders?filter[store_id]=${storeId}&page[size]=100`)
      .expect(200);
    const countryOfOrder = new Map<string, string>();
    for (const o of orders.body.data as {
      id: string;
      attributes: OrderAttributes;
    }[]) {
      const country = o.attributes.tax_evidence.billing_country!;
      countryOfOrder.set(o.id, country);
      const made = o.attributes.created_at;
      if (made >= from && made < to && o.attributes.status !== 'failed')
        net[country] = (net[country] ?? 0) + o.attributes.tax;
    }
    const invoices = await api()
      .get(
        `/v1/subscription-invoices?filter[store_id]=${storeId}&page[size]=100`,
      )
      .expect(200);
    for (const i of invoices.body.data as {
      attributes: {
        billing_reason: string;
        created_at: string;
        status: string;
        tax: number;
        subscription_id: number;
      };
    }[]) {
      const a = i.attributes;
      if (a.billing_reason === 'initial' || a.status !== 'paid') continue;
      if (a.created_at < from || a.created_at >= to) continue;
      const subscription = await api()
        .get(`/v1/subscriptions/${a.subscription_id}`)
        .expect(200);
      const country = countryOfOrder.get(
        String(subscription.body.data.attributes.order_id),
      )!;
      net[country] = (net[country] ?? 0) + a.tax;
    }
    for (const [country, tax] of Object.entries(refundedTaxIn[quarter] ?? {}))
      net[country] = (net[country] ?? 0) - tax;
    return net;
  }

  const byCountry = (rows: Row[]) => {
    const sums: Record<string, number> = {};
    for (const row of rows)
      sums[row.country!] = (sums[row.country!] ?? 0) + row.net_tax;
    return sums;
  };

  it('sells, renews and refunds across Q3 and Q4', async () => {
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1000 },
      { name: 'Font Licence' },
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, priced.product.id);
    const bought: Record<string, string> = {};
    for (const [name, buyer] of Object.entries({
      de: { billing_address: { country: 'DE', zip: '10115' } },
      fr: { billing_address: { country: 'FR', zip: '75001' } },
      gb: { billing_address: { country: 'GB', zip: 'SW1A 1AA' } },
      tx: { billing_address: { country: 'US', zip: '73301', state: 'TX' } },
      ca: { billing_address: { country: 'US', zip: '94103', state: 'CA' } },
      b2b: {
        billing_address: { country: 'DE', zip: '80331' },
        tax_number: 'DE 136 695 976',
      },
    })) {
      const response = await buy(t.baseUrl, url, {
        email: `${name}@example.com`,
        ...buyer,
      }).expect(201);
      bought[name] = response.body.data.id as string;
    }
    expect((await order(bought.de)).tax).toBe(190);
    expect((await order(bought.b2b)).tax).toBe(0);
    expect((await order(bought.tx)).tax).toBe(63);
    const subscription = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1000 },
      {
        email: 'abo@example.de',
        billing_address: { country: 'DE', zip: '20095' },
      },
    );
    bought.subscriber = subscription.orderId;
    // In Q3: a partial refund of the German order, and the August renewal.
    setNow(at('2026-07-20T09:00:00Z'));
    await refund(bought.de, 595, 'Q3');
    await t.app.get(RenewalService).sweep(at('2026-08-10T12:00:01Z'));
    const invoices = await api()
      .get(
        `/v1/subscription-invoices?filter[subscription_id]=${subscription.subscription.id}`,
      )
      .expect(200);
    expect(
      (invoices.body.data as { attributes: Record<string, unknown> }[]).map(
        (i) => [
          i.attributes.billing_reason,
          i.attributes.status,
          i.attributes.tax,
        ],
      ),
    ).toEqual(
      expect.arrayContaining([
        ['initial', 'paid', 190],
        ['renewal', 'paid', 190],
      ]),
    );
    // In Q4: the French order refunded in full.
    setNow(at('2026-10-05T09:00:00Z'));
    await refund(bought.fr, 1200, 'Q4');
  });

  it('reports Q3 per country and rate, net of the refunds made in Q3, as the orders and invoices say', async () => {
    const response = await report('2026-Q3').expect(200);
    expect(response.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    const data = response.body.data as {
      type: string;
      id: string;
      attributes: Record<string, unknown> & { rows: Row[] };
    };
    expect(data.type).toBe('tax-reports');
    expect(data.id).toBe(`${storeId}-2026-Q3`);
    expect(data.attributes).toMatchObject({
      store_id: storeId,
      period: '2026-Q3',
      starts_at: '2026-07-01T00:00:00.000000Z',
      ends_at: '2026-10-01T00:00:00.000000Z',
      currency: 'EUR',
      test_mode: true,
      eur_conversions: [
        {
          currency: 'EUR',
          eur_per_unit: '1',
          rate_date: null,
          source: 'identity',
        },
      ],
    });
    const rows = data.attributes.rows;
    const row = (country: string, more: Partial<Row> = {}) =>
      rows.filter(
        (r) =>
          r.country === country &&
          Object.entries(more).every(
            ([k, v]) => (r as unknown as Record<string, unknown>)[k] === v,
          ),
      );
    // Germany: two consumers (one refunded 95 of its 190) and a renewal at
    // 19 %; the business buyer reverse-charged on a row of its own.
    expect(row('DE', { reverse_charge: false })).toEqual([
      {
        country: 'DE',
        region: null,
        tax_name: 'VAT',
        tax_rate: 19,
        reverse_charge: false,
        currency: 'EUR',
        sales: 3,
        refunds: 1,
        taxable_amount: 3000,
        tax: 570,
        refunded_taxable_amount: 500,
        refunded_tax: 95,
        net_taxable_amount: 2500,
        net_tax: 475,
        net_taxable_amount_eur: 2500,
        net_tax_eur: 475,
      },
    ]);
    expect(row('DE', { reverse_charge: true })).toEqual([
      expect.objectContaining({
        tax_name: null,
        tax_rate: 0,
        sales: 1,
        taxable_amount: 1000,
        tax: 0,
        net_tax: 0,
      }),
    ]);
    // France's refund was made in October: not in Q3.
    expect(row('FR')).toEqual([
      expect.objectContaining({
        tax_rate: 20,
        sales: 1,
        refunds: 0,
        net_tax: 200,
      }),
    ]);
    expect(row('GB')).toEqual([
      expect.objectContaining({ tax_rate: 20, sales: 1, net_tax: 200 }),
    ]);
    expect(
      row('US').map((r) => [r.region, r.tax_name, r.tax_rate, r.net_tax]),
    ).toEqual([
      ['CA', null, 0, 0],
      ['TX', 'Sales tax', 6.25, 63],
    ]);
    expect(byCountry(rows)).toEqual(
      await expectedNetTax('2026-07-01', '2026-10-01', 'Q3'),
    );
  });

  it('puts the October refund in Q4, and a month or a year covers its own sales', async () => {
    const q4 = (await report('2026-Q4').expect(200)).body.data.attributes
      .rows as Row[];
    expect(q4).toEqual([
      expect.objectContaining({
        country: 'FR',
        sales: 0,
        refunds: 1,
        refunded_taxable_amount: 1000,
        refunded_tax: 200,
        net_taxable_amount: -1000,
        net_tax: -200,
        net_tax_eur: -200,
      }),
    ]);
    expect(byCountry(q4)).toEqual(
      await expectedNetTax('2026-10-01', '2027-01-01', 'Q4'),
    );
    const august = (await report('2026-08').expect(200)).body.data.attributes
      .rows as Row[];
    expect(august).toEqual([
      expect.objectContaining({
        country: 'DE',
        sales: 1,
        tax: 190,
        refunds: 0,
      }),
    ]);
    const year = (await report('2026').expect(200)).body.data.attributes
      .rows as Row[];
    const q3 = (await report('2026-q3').expect(200)).body.data.attributes
      .rows as Row[];
    const total = (rows: Row[]) => rows.reduce((sum, r) => sum + r.net_tax, 0);
    expect(total(year)).toBe(total(q3) + total(q4));
  });

  it('converts a closed period at the ECB rates of its last day (or the next publication), an open one at the newest rates', async () => {
    const dollarStore = merchant.stores[1].id;
    await updateStore(t.baseUrl, merchant.testKey, dollarStore, {
      country: 'US',
      currency: 'USD',
    }).expect(200);
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      dollarStore,
      { unit_price: 1000 },
      { name: 'Icon Pack' },
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, priced.product.id);
    setNow(at('2026-08-01T10:00:00Z'));
    await buy(t.baseUrl, url, {
      billing_address: { country: 'US', zip: '73301', state: 'TX' },
    }).expect(201);
    await buy(t.baseUrl, url, {
      billing_address: { country: 'DE', zip: '10115' },
    }).expect(201);
    setNow(at('2026-10-05T09:00:00Z'));
    // No rates stored for 30 September: 1 October is the next publication.
    const rates = t.app.get(ExchangeRateRepository);
    for (const [date, eur] of [
      ['2026-09-29', 1.1],
      ['2026-10-01', 1.17],
      ['2026-10-02', 1.2],
    ] as const)
      await rates.saveDay(
        { date, source: 'ECB test', usdPerUnit: { EUR: eur, GBP: 1.35 } },
        new Date(),
      );
    const q3 = (await report('2026-Q3', undefined, dollarStore).expect(200))
      .body.data.attributes;
    expect(q3.eur_conversions).toEqual([
      {
        currency: 'USD',
        eur_per_unit: '0.8547008547',
        rate_date: '2026-10-01',
        source: 'ecb',
      },
    ]);
    expect(
      (q3.rows as Row[]).map((r) => [
        r.country,
        r.currency,
        r.net_tax,
        r.net_tax_eur,
        r.net_taxable_amount,
        r.net_taxable_amount_eur,
      ]),
    ).toEqual([
      // $1.90 and $0.63 at 1/1.17: 162.39 and 53.85 euro cents.
      ['DE', 'USD', 190, 162, 1000, 855],
      ['US', 'USD', 63, 54, 1000, 855],
    ]);
    // Q4 is not over: the newest stored day stands in, provisionally.
    const q4 = (await report('2026-Q4', undefined, dollarStore).expect(200))
      .body.data.attributes;
    expect(q4).toMatchObject({
      rows: [],
      eur_conversions: [
        {
          currency: 'USD',
          eur_per_unit: '0.8333333333',
          rate_date: '2026-10-02',
          source: 'latest',
        },
      ],
    });
  });

  it('answers the same rows as CSV for Accept: text/csv', async () => {
    const json = (await report('2026-Q3').expect(200)).body.data.attributes
      .rows as Row[];
    const response = await report('2026-Q3')
      .set('Accept', 'text/csv')
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      })
      .expect(200);
    expect(response.headers['content-type']).toBe(
      'text/csv; charset=utf-8; header=present',
    );
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="tax-report-${storeId}-2026-Q3.csv"`,
    );
    const text = response.body as string;
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...lines] = text.trimEnd().split('\r\n').map(cells);
    expect(lines).toHaveLength(json.length);
    const parsed = lines.map((line) =>
      Object.fromEntries(header.map((name, i) => [name, line[i]])),
    );
    const asText = (value: string | number | boolean | null) =>
      value === null ? '' : String(value);
    for (const [i, row] of json.entries()) {
      expect(parsed[i].period).toBe('2026-Q3');
      for (const [name, value] of Object.entries(row))
        expect([name, parsed[i][name]]).toEqual([name, asText(value)]);
    }
  });

  it('shows a key only its own stores, in its own mode', async () => {
    const foreign = await report('2026-Q3', other.testKey).expect(404);
    expect(foreign.body.errors[0]).toMatchObject({
      code: 'tax_report_store_not_found',
      source: { parameter: 'filter[store_id]' },
    });
    const own = await report(
      '2026-Q3',
      other.testKey,
      other.stores[0].id,
    ).expect(200);
    expect(own.body.data.attributes.rows).toEqual([]);
    const live = await report('2026-Q3', merchant.liveKey).expect(200);
    expect(live.body.data.attributes).toMatchObject({
      test_mode: false,
      rows: [],
    });
  });

  it('refuses a missing or malformed store or period with stable codes', async () => {
    const cases: [string, number, string][] = [
      [`filter[period]=2026-Q3`, 422, 'tax_report_store_required'],
      [`filter[store_id]=${storeId}`, 422, 'tax_report_period_required'],
      [
        `filter[store_id]=${storeId}&filter[period]=2026-Q5`,
        422,
        'tax_report_period_invalid',
      ],
      [
        `filter[store_id]=${storeId}&filter[period]=Q3-2026`,
        422,
        'tax_report_period_invalid',
      ],
      [
        `filter[store_id]=abc&filter[period]=2026-Q3`,
        404,
        'tax_report_store_not_found',
      ],
      [
        `filter[store_id]=999999&filter[period]=2026-Q3`,
        404,
        'tax_report_store_not_found',
      ],
      [
        `filter[store_id]=${storeId}&filter[period]=2026&filter[country]=DE`,
        400,
        'unknown_parameter',
      ],
    ];
    for (const [query, status, code] of cases) {
      const response = await api()
        .get(`/v1/tax-reports?${query}`)
        .expect(status);
      expect([query, response.body.errors[0].code]).toEqual([query, code]);
    }
    await request(t.baseUrl)
      .get(`/v1/tax-reports?filter[store_id]=${storeId}&filter[period]=2026`)
      .expect(401);
  });

  const withServer = process.env.DATABASE_URL ? it : it.skip;
  withServer('prints the same figures with the CLI', async () => {
    const env = {
      DATABASE_URL: t.config.database.url!,
      APP_KEY: TEST_APP_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    };
    const json = (await report('2026-Q3').expect(200)).body.data.attributes;
    const printed = await runCli(env, [
      'tax:report',
      '--store',
      String(storeId),
      '--period',
      '2026-Q3',
    ]);
    expect({ ...printed, generated_at: null }).toEqual({
      ...json,
      generated_at: null,
    });
    const csv = await runCli(env, [
      'tax:report',
      '--store',
      String(storeId),
      '--period',
      '2026-Q3',
      '--csv',
    ]);
    const http = await report('2026-Q3').set('Accept', 'text/csv').expect(200);
    expect(csv).toEqual({ csv: http.text });
  });
});
