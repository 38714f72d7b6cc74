import { Client } from 'pg';
import request from 'supertest';
import { StripeTaxRecords } from '../../src/modules/tax/stripe-tax-records';
import { buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
  updateStore,
} from '../support/factories';
import {
  confirmInBrowser,
  connectStripe,
  IntentAnswer,
  intentIdOf,
  returnFromStripe,
  stripeKeys,
  stripePage,
  submitStripe,
} from '../support/stripe-checkout';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

const KEYS = stripeKeys('TaxShop');

interface OrderAttributes extends Record<string, unknown> {
  identifier: string;
  subtotal: number;
  tax: number;
  total: number;
  tax_name: string | null;
  tax_rate: number;
  tax_note: string | null;
  tax_evidence: Record<string, unknown>;
}

/** Waits for a condition, generously (no timed assertions). */
async function until<T>(probe: () => Promise<T | null | undefined | false>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('Condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Issue 30, item 1: a French store that chose Stripe Tax. The hosted
 * checkout asks Stripe Tax (the double) for the calculation before the
 * purchase's transaction, the order keeps its rate and the calculation id,
 * and the worker records the tax transaction at Stripe once, and a refund's
 * reversal. Stripe down: 503 and nothing written.
 */
describe('Stripe Tax as the store’s tax provider', () => {
  let double: StripeDouble;
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let db: Client;
  let storeId: number;
  let buyUrl: string;

  const patchStore = (
    id: number,
    attributes: Record<string, unknown>,
    key = merchant.testKey,
  ) => updateStore(t.baseUrl, key, id, attributes);

  const count = async (table: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

  /** The hosted page, submitted with these fields: the intent to confirm. */
  const submit = async (fields: Record<string, string>) => {
    const page = await stripePage(t.baseUrl, buyUrl);
    return submitStripe(t.baseUrl, buyUrl, page.token, fields);
  };

  /** A whole purchase: submit, confirm in the browser, return. */
  async function purchase(fields: Record<string, string>) {
    const submitted = await submit(fields);
    expect(submitted.status).toBe(200);
    const answer = submitted.body as IntentAnswer;
    const confirmed = await confirmInBrowser(
      double,
      KEYS.publishable_key,
      answer,
      '4242 4242 4242 4242',
    );
    expect(confirmed.body.status).toBe('succeeded');
    await returnFromStripe(t.baseUrl, answer).expect(303);
    const identifier = /\/my-orders\/([0-9a-f-]{36})\/return/.exec(
      answer.return_url,
    )![1];
    const { rows } = await db.query<{ id: number; status: string }>(
      `SELECT id, status FROM orders WHERE identifier = $1`,
      [identifier],
    );
    expect(rows[0].status).toBe('paid');
    const shown = await request(t.baseUrl)
      .get(`/v1/orders/${rows[0].id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    const intent = double.find(
      KEYS.secret_key,
      intentIdOf(answer.client_secret),
    )!;
    const order = shown.body.data.attributes as OrderAttributes;
    // Stripe charged what the order says, tax included.
    expect(intent.amount).toBe(order.total);
    return { id: rows[0].id, ...order };
  }

  /** The calculation the order names in its evidence, as the double made it. */
  const calculationOf = (order: OrderAttributes) => {
    const source = String(order.tax_evidence.rate_source);
    expect(source).toMatch(/^stripe_tax:taxcalc_/);
    return double.find(KEYS.secret_key, source.slice('stripe_tax:'.length))!;
  };

  /** The order's tax transactions at Stripe (the double). */
  const transactionsOf = (reference: string) =>
    double
      .list(KEYS.secret_key, 'tax.transaction')
      .filter((tx) => String(tx.reference).startsWith(reference));

  const recordedRow = (orderId: number, kind: string) =>
    until(async () => {
      const { rows } = await db.query<{ stripe_id: string | null }>(
        `SELECT stripe_id FROM stripe_tax_records
          WHERE order_id = $1 AND kind = $2 AND recorded_at IS NOT NULL`,
        [orderId, kind],
      );
      return rows[0]?.stripe_id;
    });

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Boutique Fiscale', 'Sans Stripe']);
    storeId = merchant.stores[0].id;
    await patchStore(storeId, { country: 'FR', currency: 'EUR' }).expect(200);
    await connectStripe(t.baseUrl, merchant.testKey, storeId, KEYS);
    // Registered for the EU One-Stop Shop and in Texas, in Stripe.
    double.taxSettings(KEYS.secret_key, 'FR', ['EU', 'US-TX']);
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1000 },
      { name: 'Typeface Licence' },
    );
    buyUrl = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await worker.close();
    await t.close();
    await double.stop();
  });

  it('lets a store choose Stripe Tax only with its Stripe account of the mode', async () => {
    const other = merchant.stores[1].id;
    const refused = await patchStore(other, { tax_provider: 'stripe' }).expect(
      422,
    );
    expect(refused.body.errors[0]).toMatchObject({
      code: 'stripe_tax_requires_stripe',
      source: { pointer: '/data/attributes/tax_provider' },
    });
    const unknown = await patchStore(other, { tax_provider: 'avalara' }).expect(
      422,
    );
    expect(unknown.body.errors[0].code).toBe('invalid_tax_provider');
    // Connected in test mode only: the live key cannot choose it.
    const live = await patchStore(
      storeId,
      { tax_provider: 'stripe' },
      merchant.liveKey,
    ).expect(422);
    expect(live.body.errors[0].code).toBe('stripe_tax_requires_stripe');
    const { rows } = await db.query(
      `SELECT id, tax_provider FROM stores WHERE id = ANY($1) ORDER BY id`,
      [[storeId, other]],
    );
    expect(rows.map((r) => r.tax_provider)).toEqual(['builtin', 'builtin']);
    await patchStore(storeId, { tax_provider: 'stripe' }).expect(200);
    const [store] = (
      await db.query(`SELECT tax_provider FROM stores WHERE id = $1`, [storeId])
    ).rows;
    expect(store.tax_provider).toBe('stripe');
  });

  it('charges a German consumer the VAT Stripe Tax calculated, keeps the calculation, and records the tax transaction once', async () => {
    const order = await purchase({
      email: 'konsument@example.de',
      'billing_address[country]': 'DE',
      'billing_address[zip]': '10115',
    });
    expect(order).toMatchObject({
      subtotal: 1000,
      tax_name: 'VAT',
      tax_rate: 19,
      tax: 190,
      total: 1190,
      tax_note: null,
    });
    expect(order.tax_evidence).toMatchObject({
      billing_country: 'DE',
      billing_zip: '10115',
      tax_number: null,
    });
    const calculation = calculationOf(order);
    expect(calculation.tax_amount_exclusive).toBe(order.tax);
    const asked = double.requests.find(
      (r) =>
        r.path === '/v1/tax/calculations' &&
        r.params.customer_details &&
        (r.params.customer_details as { address: { country: string } }).address
          .country === 'DE',
    )!;
    expect(asked.params).toEqual({
      currency: 'eur',
      customer_details: {
        address: { country: 'DE', postal_code: '10115' },
        address_source: 'billing',
      },
      line_items: [
        {
          amount: '1000',
          reference: expect.stringMatching(/^variant_\d+$/),
          tax_code: 'txcd_10000000',
          tax_behavior: 'exclusive',
        },
      ],
    });
    // The worker records it at Stripe, under the order's identifier.
    const stripeId = await recordedRow(order.id, 'transaction');
    const [transaction] = transactionsOf(order.identifier);
    expect(transaction).toMatchObject({
      id: stripeId,
      object: 'tax.transaction',
      type: 'transaction',
      reference: order.identifier,
    });
    const created = double.requests.filter(
      (r) => r.path === '/v1/tax/transactions/create_from_calculation',
    );
    expect(created.at(-1)).toMatchObject({
      params: { calculation: calculation.id, reference: order.identifier },
      idempotencyKey: `zest-tax-${order.identifier}`,
    });

    // A crash after Stripe answered but before the mark, then two workers
    // at once and a retried job: still one transaction at Stripe.
    await db.query(
      `UPDATE stripe_tax_records SET recorded_at = NULL, stripe_id = NULL WHERE order_id = $1`,
      [order.id],
    );
    const records = t.app.get(StripeTaxRecords);
    await Promise.all([records.recordOpen(), records.recordOpen()]);
    await records.recordOpen();
    expect(transactionsOf(order.identifier)).toHaveLength(1);
    expect(await recordedRow(order.id, 'transaction')).toBe(stripeId);

    // A refund of half: a partial reversal of half the sale, once.
    await request(t.baseUrl)
      .post(`/v1/orders/${order.id}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'orders',
            id: String(order.id),
            attributes: { amount: 595 },
          },
        }),
      )
      .expect(200);
    const reversalId = await recordedRow(order.id, 'reversal');
    await Promise.all([records.recordOpen(), records.recordOpen()]);
    const reversal = double.find(KEYS.secret_key, reversalId)!;
    expect(reversal).toMatchObject({
      type: 'reversal',
      reversal: { original_transaction: stripeId },
      reference: `${order.identifier}-refund-1`,
    });
    const lines = (reversal.line_items as { data: Record<string, number>[] })
      .data;
    expect(lines[0]).toMatchObject({ amount: -500, amount_tax: -95 });
    expect(transactionsOf(order.identifier)).toHaveLength(2);
    const reversalRequest = double.requests.find(
      (r) => r.path === '/v1/tax/transactions/create_reversal',
    )!;
    expect(reversalRequest.params).toMatchObject({
      mode: 'partial',
      original_transaction: stripeId,
      flat_amount: '-595',
    });
  });

  it('reverse-charges a German business with a valid VAT number buying from the French store', async () => {
    const order = await purchase({
      email: 'einkauf@firma.example.de',
      'billing_address[country]': 'DE',
      'billing_address[zip]': '80331',
      tax_number: 'DE 136 695 976',
    });
    expect(order).toMatchObject({
      tax_name: null,
      tax_rate: 0,
      tax: 0,
      total: 1000,
    });
    expect(order.tax_note).toContain('Reverse charge');
    expect(order.tax_note).toContain('DE136695976');
    expect(order.tax_evidence).toMatchObject({
      tax_number: 'DE136695976',
      tax_number_check: 'valid',
    });
    const calculation = calculationOf(order);
    expect(calculation.customer_details).toMatchObject({
      tax_ids: [{ type: 'eu_vat', value: 'DE136695976' }],
    });
    expect(
      (calculation.tax_breakdown as { taxability_reason: string }[])[0]
        .taxability_reason,
    ).toBe('reverse_charge');
    await recordedRow(order.id, 'transaction');
    expect(transactionsOf(order.identifier)).toHaveLength(1);
  });

  it('charges a Texan buyer Texas sales tax where the store is registered in Stripe', async () => {
    const order = await purchase({
      email: 'buyer@example.com',
      'billing_address[country]': 'US',
      'billing_address[zip]': '75001',
    });
    const calculation = calculationOf(order);
    expect(order).toMatchObject({
      tax_name: 'Sales tax',
      tax_rate: 6.25,
      tax: calculation.tax_amount_exclusive,
    });
    expect(order.tax_evidence).toMatchObject({
      billing_country: 'US',
      billing_zip: '75001',
      billing_region: 'TX',
    });
    expect(calculation.customer_details).toMatchObject({
      address: { country: 'US', postal_code: '75001', state: 'TX' },
    });
  });

  it('charges no tax where the store is not registered in Stripe (New York)', async () => {
    const order = await purchase({
      email: 'buyer-ny@example.com',
      'billing_address[country]': 'US',
      'billing_address[zip]': '10001',
    });
    expect(order).toMatchObject({ tax_name: null, tax: 0, total: 1000 });
    expect(
      (calculationOf(order).tax_breakdown as { taxability_reason: string }[])[0]
        .taxability_reason,
    ).toBe('not_collecting');
  });

  it('answers 503 and writes nothing when Stripe Tax fails or does not answer', async () => {
    const orders = await count('orders');
    const attempts = await count('payment_attempts');
    const records = await count('stripe_tax_records');
    const intents = double.list(KEYS.secret_key, 'payment_intent').length;
    const fields = {
      email: 'retry@example.de',
      'billing_address[country]': 'DE',
      'billing_address[zip]': '10115',
    };
    double.failRequests(1);
    const failed = await submit(fields);
    expect(failed.status).toBe(503);
    expect(failed.body.errors[0]).toMatchObject({
      status: '503',
      code: 'tax_service_unavailable',
    });
    double.hangRequests(1);
    const hung = await submit(fields);
    expect(hung.status).toBe(503);
    expect(hung.body.errors[0].code).toBe('tax_service_unavailable');
    expect(await count('orders')).toBe(orders);
    expect(await count('payment_attempts')).toBe(attempts);
    expect(await count('stripe_tax_records')).toBe(records);
    expect(double.list(KEYS.secret_key, 'payment_intent')).toHaveLength(
      intents,
    );
    // Stripe is back: the buyer's retry goes through.
    const order = await purchase(fields);
    expect(order.tax).toBe(190);
  });

  it('keeps the tax transaction owed while Stripe is down and records it when Stripe is back', async () => {
    const order = await purchase({
      email: 'later@example.de',
      'billing_address[country]': 'FR',
      'billing_address[zip]': '75001',
    });
    expect(order).toMatchObject({ tax_rate: 20, tax: 200 });
    await recordedRow(order.id, 'transaction');
    await db.query(
      `UPDATE stripe_tax_records SET recorded_at = NULL, stripe_id = NULL WHERE order_id = $1`,
      [order.id],
    );
    // The transaction Stripe made is replayed under its idempotency key;
    // before that, an outage: the job fails and the row stays open.
    const records = t.app.get(StripeTaxRecords);
    // (The client retries twice after the first failure.)
    double.failRequests(3);
    await expect(records.recordOpen()).rejects.toThrow();
    const { rows } = await db.query(
      `SELECT attempts, last_error, recorded_at FROM stripe_tax_records WHERE order_id = $1`,
      [order.id],
    );
    expect(rows[0]).toMatchObject({ recorded_at: null });
    expect(rows[0].attempts).toBeGreaterThanOrEqual(1);
    await records.recordOpen();
    await recordedRow(order.id, 'transaction');
    expect(transactionsOf(order.identifier)).toHaveLength(1);
  });
});
