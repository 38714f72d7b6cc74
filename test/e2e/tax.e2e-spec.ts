import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { buySubscription } from '../support/billing';
import { buy, buyNowUrl, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  updateStore,
} from '../support/factories';
import { runCli } from '../support/processes';
import { startTestApp, TestApp, TEST_APP_KEY } from '../support/test-app';

interface OrderAttributes extends Record<string, unknown> {
  tax: number;
  total: number;
  tax_name: string | null;
  tax_rate: number;
  tax_note: string | null;
  refunded_tax: number;
  tax_evidence: Record<string, unknown>;
  urls: { receipt: string };
}

/**
 * The tax engine through the purchase route, with no TAX_RATES: a French
 * store selling a €10.00 e-service to consumers and businesses in Germany,
 * the UK, California and Texas. Each order carries the right tax, its
 * evidence and (for a reverse charge) the note, and so does its
 * order_created webhook payload.
 */
describe('tax by the buyer’s location', () => {
  let t: TestApp;
  let db: Client;
  let key: string;
  let storeId: number;
  let buyUrl: string;
  let variantId: string;

  beforeAll(async () => {
    t = await startTestApp();
    const merchant = await createMerchant(t.app, ['Boutique Numérique']);
    key = merchant.testKey;
    storeId = merchant.stores[0].id;
    await patchStore({ country: 'FR', currency: 'EUR' }).expect(200);
    const priced = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      { unit_price: 1000 },
      { name: 'Font Licence' },
    );
    variantId = priced.variantId;
    buyUrl = await buyNowUrl(t.baseUrl, key, priced.product.id);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const patchStore = (attributes: Record<string, unknown>) =>
    updateStore(t.baseUrl, key, storeId, attributes);

  /** Buys, then reads the order over the API and its order_created payload. */
  async function purchase(buyer: Parameters<typeof buy>[2]) {
    const response = await buy(t.baseUrl, buyUrl, buyer).expect(201);
    const id = response.body.data.id as string;
    const shown = await request(t.baseUrl)
      .get(`/v1/orders/${id}`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    const { rows } = await db.query<{ data: { attributes: OrderAttributes } }>(
      `SELECT data FROM webhook_events WHERE name = 'order_created' AND data->>'id' = $1`,
      [id],
    );
    expect(rows).toHaveLength(1);
    const attributes = shown.body.data.attributes as OrderAttributes;
    expect(rows[0].data.attributes).toEqual(attributes);
    return { id, ...attributes };
  }

  it('charges a German consumer German VAT and keeps the evidence', async () => {
    const order = await purchase({
      email: 'konsument@example.de',
      billing_address: { country: 'DE', zip: '10115' },
    });
    expect(order).toMatchObject({
      currency: 'EUR',
      subtotal: 1000,
      tax_name: 'VAT',
      tax_rate: 19,
      tax_inclusive: false,
      tax: 190,
      total: 1190,
      tax_note: null,
    });
    expect(order.tax_evidence).toEqual({
      billing_country: 'DE',
      billing_zip: '10115',
      billing_region: null,
      tax_number: null,
      tax_number_check: null,
      rate_source: expect.stringMatching(
        /^sales-tax@2\.23\.0\+zest-digital-\d{4}-\d{2}-\d{2}$/,
      ),
    });
    expect(order.refunded_tax).toBe(0);
    // Half the money back: half the tax back.
    const refunded = await request(t.baseUrl)
      .post(`/v1/orders/${order.id}/refund`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: order.id, attributes: { amount: 595 } },
        }),
      )
      .expect(200);
    expect(refunded.body.data.attributes).toMatchObject({
      refunded_amount: 595,
      refunded_tax: 95,
    });
  });

  it('reverse-charges a German business with a valid VAT number, and says so on the receipt', async () => {
    const order = await purchase({
      email: 'einkauf@firma.example.de',
      billing_address: { country: 'DE', zip: '80331' },
      tax_number: 'DE 136 695 976',
    });
    expect(order).toMatchObject({
      tax_name: null,
      tax_rate: 0,
      tax: 0,
      total: 1000,
    });
    expect(order.tax_note).toBe(
      'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC). Customer VAT number: DE136695976.',
    );
    expect(order.tax_evidence).toMatchObject({
      tax_number: 'DE136695976',
      tax_number_check: 'valid',
      rate_source: 'reverse_charge',
    });
    const receipt = await request(t.baseUrl)
      .get(pathOf(order.urls.receipt))
      .expect(200);
    expect(receipt.text).toContain('Reverse charge: VAT to be accounted for');
  });

  it('refuses a VAT number that fails its check, and writes no order', async () => {
    const before = await db.query(`SELECT count(*)::int AS n FROM orders`);
    const response = await buy(t.baseUrl, buyUrl, {
      billing_address: { country: 'DE', zip: '80331' },
      tax_number: 'DE123456789',
    }).expect(422);
    expect(response.body.errors[0]).toMatchObject({
      code: 'invalid_vat_number',
      source: { pointer: '/tax_number' },
    });
    const after = await db.query(`SELECT count(*)::int AS n FROM orders`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('previews a checkout with the same engine', async () => {
    const preview = async (checkoutData: Record<string, unknown>) =>
      (
        await request(t.baseUrl)
          .post('/v1/checkouts')
          .set('Authorization', `Bearer ${key}`)
          .set('Content-Type', 'application/vnd.api+json')
          .send(
            JSON.stringify({
              data: {
                type: 'checkouts',
                attributes: { preview: true, checkout_data: checkoutData },
                relationships: {
                  store: { data: { type: 'stores', id: String(storeId) } },
                  variant: { data: { type: 'variants', id: variantId } },
                },
              },
            }),
          )
          .expect(201)
      ).body.data.attributes.preview as { tax: number; total: number };
    expect(
      await preview({ billing_address: { country: 'DE', zip: '10115' } }),
    ).toMatchObject({ tax: 190, total: 1190 });
    expect(
      await preview({
        billing_address: { country: 'DE', zip: '10115' },
        tax_number: 'DE136695976',
      }),
    ).toMatchObject({ tax: 0, total: 1000 });
    expect(
      await preview({ billing_address: { country: 'US', zip: '78701' } }),
    ).toMatchObject({ tax: 63, total: 1063 });
  });

  it('charges a UK consumer UK VAT', async () => {
    const order = await purchase({
      billing_address: { country: 'GB', zip: 'SW1A 1AA' },
    });
    expect(order).toMatchObject({
      tax_name: 'VAT',
      tax_rate: 20,
      tax: 200,
      total: 1200,
    });
  });

  it('charges a Californian nothing and a Texan Texas sales tax', async () => {
    const californian = await purchase({
      billing_address: { country: 'US', zip: '94103' },
    });
    expect(californian).toMatchObject({
      tax_name: null,
      tax_rate: 0,
      tax: 0,
      total: 1000,
    });
    expect(californian.tax_evidence).toMatchObject({
      billing_region: 'CA',
      billing_zip: '94103',
    });
    const texan = await purchase({
      billing_address: { country: 'US', zip: '78701' },
    });
    // 6.25 % of €10.00 is 62.5 cents, rounded half up.
    expect(texan).toMatchObject({
      tax_name: 'Sales tax',
      tax_rate: 6.25,
      tax: 63,
      total: 1063,
    });
    expect(texan.tax_evidence).toMatchObject({ billing_region: 'TX' });
    // A state given on the checkout wins over the ZIP code.
    const given = await purchase({
      billing_address: { country: 'US', zip: '78701', state: 'CA' },
    });
    expect(given).toMatchObject({ tax: 0 });
  });

  it('prices parallel purchases from different countries each by its own buyer', async () => {
    const buyers: [string, string, string | undefined, number][] = [
      ['DE', '10115', undefined, 190],
      ['GB', 'SW1A 1AA', undefined, 200],
      ['US', '78701', undefined, 63],
      ['US', '94103', undefined, 0],
      ['CA', 'H2X 1Y4', undefined, 150], // 14.975 % of 1000 = 149.75
      ['DE', '80331', 'DE136695976', 0],
      ['AT', '1010', undefined, 200],
      ['HU', '1051', undefined, 270],
    ];
    const responses = await Promise.all(
      buyers.map(([country, zip, taxNumber]) =>
        buy(t.baseUrl, buyUrl, {
          billing_address: { country, zip },
          tax_number: taxNumber,
        }),
      ),
    );
    responses.forEach((response, i) => {
      expect(response.status).toBe(201);
      expect(response.body.data.attributes.tax).toBe(buyers[i][3]);
      expect(response.body.data.attributes.tax_evidence.billing_country).toBe(
        buyers[i][0],
      );
    });
  });

  it('keeps the reverse charge on a business’s subscription and its invoices', async () => {
    const bought = await buySubscription(
      t.baseUrl,
      key,
      storeId,
      { unit_price: 2000 },
      {
        billing_address: { country: 'DE', zip: '80331' },
        tax_number: 'DE136695976',
      },
    );
    const { rows } = await db.query<{
      tax: number;
      tax_rate: string;
      tax_note: string | null;
      subscription_note: string | null;
    }>(
      `SELECT i.tax, i.tax_rate, i.tax_note, s.tax_note AS subscription_note
         FROM subscription_invoices i JOIN subscriptions s ON s.id = i.subscription_id
        WHERE s.id = $1`,
      [Number(bought.subscription.id)],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tax: 0, tax_rate: '0.0000' });
    expect(rows[0].tax_note).toContain('Reverse charge');
    expect(rows[0].subscription_note).toBe(rows[0].tax_note);
  });

  it('follows the store’s tax-inclusive prices and registrations', async () => {
    await patchStore({ tax_inclusive: true }).expect(200);
    const inclusive = await purchase({
      billing_address: { country: 'DE', zip: '10115' },
    });
    // €10.00 including 19 %: net round(1000 / 1.19) = 840, tax 160.
    expect(inclusive).toMatchObject({
      tax_inclusive: true,
      tax_rate: 19,
      tax: 160,
      total: 1000,
    });
    await patchStore({
      tax_inclusive: null,
      tax_registrations: ['fr', 'EU'],
    }).expect(200);
    const british = await purchase({
      billing_address: { country: 'GB', zip: 'SW1A 1AA' },
    });
    expect(british).toMatchObject({ tax: 0, tax_name: null });
    expect(british.tax_evidence).toMatchObject({
      rate_source: 'not_registered',
    });
    const austrian = await purchase({
      billing_address: { country: 'AT', zip: '1010' },
    });
    expect(austrian).toMatchObject({ tax: 200, tax_rate: 20 });
    const refused = await patchStore({ tax_registrations: ['XX'] }).expect(422);
    expect(refused.body.errors[0].code).toBe('invalid_tax_registrations');
    await patchStore({ tax_registrations: null }).expect(200);
  });

  const withServer = process.env.DATABASE_URL ? it : it.skip;
  withServer('shows and sets the tax settings with the CLI', async () => {
    const env = {
      DATABASE_URL: t.config.database.url!,
      APP_KEY: TEST_APP_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    };
    const set = await runCli(env, [
      'stores:tax',
      '--store',
      String(storeId),
      '--inclusive',
      'yes',
      '--registrations',
      'fr, EU,GB',
    ]);
    expect(set).toEqual({
      store_id: storeId,
      country: 'FR',
      tax_inclusive: true,
      tax_registrations: ['FR', 'EU', 'GB'],
      tax_provider: 'builtin',
    });
    // Stripe Tax needs the store's Stripe account of the mode.
    await expect(
      runCli(env, [
        'stores:tax',
        '--store',
        String(storeId),
        '--provider',
        'stripe',
        '--mode',
        'test',
      ]),
    ).rejects.toThrow(/stripe_tax_requires_stripe|Stripe Tax needs/);
    const reset = await runCli(env, [
      'stores:tax',
      '--store',
      String(storeId),
      '--inclusive',
      'default',
      '--registrations',
      '',
    ]);
    expect(reset).toMatchObject({
      tax_inclusive: null,
      tax_registrations: null,
    });
  });
});

/**
 * TAX_VAT_VALIDATION=online against a local VIES stand-in: a number VIES
 * does not know is refused; with VIES down the offline check stands in and
 * the order says so (`valid_offline`).
 */
describe('online VAT number validation', () => {
  let t: TestApp;
  let vies: Server;
  let viesStatus = 200;
  let viesValid = true;
  let buyUrl: string;
  let key: string;

  beforeAll(async () => {
    vies = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(viesStatus, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ valid: viesValid }));
      });
    });
    await new Promise<void>((resolve) => vies.listen(0, '127.0.0.1', resolve));
    t = await startTestApp({
      TAX_VAT_VALIDATION: 'online',
      TAX_VIES_URL: `http://127.0.0.1:${(vies.address() as AddressInfo).port}`,
      TAX_VIES_TIMEOUT_MS: '1000',
    });
    const merchant = await createMerchant(t.app, ['Online Check Store']);
    key = merchant.testKey;
    const storeId = merchant.stores[0].id;
    await updateStore(t.baseUrl, key, storeId, { country: 'FR' }).expect(200);
    const priced = await createPricedProduct(t.baseUrl, key, storeId, {
      unit_price: 1000,
    });
    buyUrl = await buyNowUrl(t.baseUrl, key, priced.product.id);
  });
  afterAll(async () => {
    await t.close();
    vies.closeAllConnections();
    await new Promise((resolve) => vies.close(resolve));
  });

  const order = async (id: string) =>
    (
      await request(t.baseUrl)
        .get(`/v1/orders/${id}`)
        .set('Authorization', `Bearer ${key}`)
        .expect(200)
    ).body.data.attributes as OrderAttributes;

  it('refuses a number VIES does not know, and reverse-charges on the offline check when VIES is down', async () => {
    viesValid = false;
    const refused = await buy(t.baseUrl, buyUrl, {
      billing_address: { country: 'DE', zip: '10115' },
      tax_number: 'DE136695976',
    }).expect(422);
    expect(refused.body.errors[0].code).toBe('invalid_vat_number');
    viesStatus = 503;
    const down = await buy(t.baseUrl, buyUrl, {
      billing_address: { country: 'AT', zip: '1010' },
      tax_number: 'ATU13585627',
    }).expect(201);
    const attributes = await order(down.body.data.id as string);
    expect(attributes).toMatchObject({ tax: 0, total: 1000 });
    expect(attributes.tax_note).toContain('Reverse charge');
    expect(attributes.tax_evidence).toMatchObject({
      tax_number_check: 'valid_offline',
    });
  });
});
