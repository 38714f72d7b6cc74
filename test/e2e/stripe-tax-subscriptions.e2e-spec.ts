import request from 'supertest';
import { DataSource } from 'typeorm';
import { StripeTaxRecords } from '../../src/modules/tax/stripe-tax-records';
import { buyNowUrl } from '../support/commerce';
import { createMerchant, createPricedProduct } from '../support/factories';
import {
  confirmInBrowser,
  connectStripe,
  IntentAnswer,
  returnFromStripe,
  stripeKeys,
  stripePage,
  submitStripe,
} from '../support/stripe-checkout';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';

const KEYS = stripeKeys('TaxPlans');

/**
 * A subscription sold at a Stripe Tax store: its order's tax transaction is
 * the sale's, and a refund of the initial invoice (the same sale, the same
 * payment) reverses it at Stripe as an order refund would.
 */
describe('Stripe Tax and a subscription’s initial invoice', () => {
  let double: StripeDouble;
  let t: TestApp;
  let key: string;
  let url: string;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    const merchant = await createMerchant(t.app, ['Abonnements']);
    key = merchant.testKey;
    const storeId = merchant.stores[0].id;
    const patch = (attributes: Record<string, unknown>) =>
      request(t.baseUrl)
        .patch(`/v1/stores/${storeId}`)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(
          JSON.stringify({
            data: { type: 'stores', id: String(storeId), attributes },
          }),
        )
        .expect(200);
    await patch({ country: 'FR', currency: 'EUR' });
    await connectStripe(t.baseUrl, key, storeId, KEYS);
    double.taxSettings(KEYS.secret_key, 'FR', ['EU']);
    await patch({ tax_provider: 'stripe' });
    const { product } = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1000,
      },
      { name: 'Fonts Monthly' },
    );
    url = await buyNowUrl(t.baseUrl, key, product.id);
  });
  afterAll(async () => {
    await t?.close();
    await double?.stop();
  });

  it('reverses the sale’s tax transaction when the initial invoice is refunded', async () => {
    const page = await stripePage(t.baseUrl, url);
    const submitted = await submitStripe(t.baseUrl, url, page.token, {
      email: 'abonne@example.de',
      'billing_address[country]': 'DE',
      'billing_address[zip]': '10115',
    });
    expect(submitted.status).toBe(200);
    const answer = submitted.body as IntentAnswer;
    await confirmInBrowser(
      double,
      KEYS.publishable_key,
      answer,
      '4242424242424242',
    );
    await returnFromStripe(t.baseUrl, answer).expect(303);
    const identifier = /\/my-orders\/([0-9a-f-]{36})\/return/.exec(
      answer.return_url,
    )![1];
    const db = t.app.get(DataSource);
    const [order] = (await db.query(
      `SELECT o.id, o.total, o.tax, i.id::text AS invoice_id
         FROM orders o
         JOIN subscriptions s ON s.order_id = o.id
         JOIN subscription_invoices i
           ON i.subscription_id = s.id AND i.billing_reason = 'initial'
        WHERE o.identifier = $1`,
      [identifier],
    )) as { id: number; total: number; tax: number; invoice_id: string }[];
    expect(order).toMatchObject({ total: 1190, tax: 190 });
    const records = t.app.get(StripeTaxRecords);
    await records.recordOpen();

    await request(t.baseUrl)
      .post(`/v1/subscription-invoices/${order.invoice_id}/refund`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'subscription-invoices',
            id: order.invoice_id,
            attributes: { amount: 595 },
          },
        }),
      )
      .expect(200);
    await records.recordOpen();
    const rows = (await db.query(
      `SELECT kind, reference, refund_amount, stripe_id FROM stripe_tax_records
        WHERE order_id = $1 ORDER BY id`,
      [order.id],
    )) as {
      kind: string;
      reference: string;
      refund_amount: number | null;
      stripe_id: string | null;
    }[];
    expect(rows.map((r) => [r.kind, r.reference, r.refund_amount])).toEqual([
      ['transaction', identifier, null],
      ['reversal', `${identifier}-refund-1`, 595],
    ]);
    const reversal = double.find(KEYS.secret_key, rows[1].stripe_id!)!;
    expect(reversal).toMatchObject({
      type: 'reversal',
      reversal: { original_transaction: rows[0].stripe_id },
      reference: `${identifier}-refund-1`,
    });
  });
});
