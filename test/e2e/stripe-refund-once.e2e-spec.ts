import request from 'supertest';
import { DataSource } from 'typeorm';
import { buyNowUrl } from '../support/commerce';
import { createMerchant, createPricedProduct } from '../support/factories';
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

const KEYS = stripeKeys('RefundOnce');

/**
 * A subscription's first order and its initial invoice describe one Stripe
 * payment. Refunding it through one of them is the refund: the other
 * refuses (422 `refund_payment_refunded_elsewhere`), so Stripe is asked
 * for one refund, never two.
 */
describe('one payment, one refund', () => {
  let double: StripeDouble;
  let t: TestApp;
  let key: string;
  let planUrl: string;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    const merchant = await createMerchant(t.app, ['Refund Once']);
    key = merchant.testKey;
    const storeId = merchant.stores[0].id;
    await connectStripe(t.baseUrl, key, storeId, KEYS);
    const { product } = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1200,
      },
      { name: 'Monthly Plan' },
    );
    planUrl = await buyNowUrl(t.baseUrl, key, product.id);
  });
  afterAll(async () => {
    await t?.close();
    await double?.stop();
  });

  /** A subscription paid through the Payment Element: its order, initial invoice and payment. */
  async function subscribe() {
    const page = await stripePage(t.baseUrl, planUrl);
    const submitted = await submitStripe(t.baseUrl, planUrl, page.token);
    expect(submitted.status).toBe(200);
    const answer = submitted.body as IntentAnswer;
    await confirmInBrowser(
      double,
      KEYS.publishable_key,
      answer,
      '4242424242424242',
    );
    await returnFromStripe(t.baseUrl, answer).expect(303);
    const intent = intentIdOf(answer.client_secret);
    const identifier = /\/my-orders\/([0-9a-f-]{36})\/return/.exec(
      answer.return_url,
    )![1];
    const [{ id: orderId }] = (await t.app
      .get(DataSource)
      .query(`SELECT id::text AS id FROM orders WHERE identifier = $1`, [
        identifier,
      ])) as { id: string }[];
    const subscription = (
      await get(`/v1/subscriptions?filter[order_id]=${orderId}`)
    ).body.data[0].id as string;
    const invoice = (
      await get(
        `/v1/subscription-invoices?filter[subscription_id]=${subscription}`,
      )
    ).body.data[0] as { id: string; attributes: Record<string, unknown> };
    expect(invoice.attributes.billing_reason).toBe('initial');
    return { orderId, invoiceId: invoice.id, intent };
  }

  const get = (path: string) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json')
      .expect(200);
  const refund = (
    type: 'orders' | 'subscription-invoices',
    id: string,
    amount?: number,
  ) =>
    request(t.baseUrl)
      .post(`/v1/${type}/${id}/refund`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type,
            id,
            attributes: amount === undefined ? {} : { amount },
          },
        }),
      );
  /** The refunds Stripe made of a payment. */
  const stripeRefunds = (intent: string) => {
    const charge = double.find(KEYS.secret_key, intent)!.latest_charge;
    return double
      .list(KEYS.secret_key, 'refund')
      .filter((r) => r.charge === charge || r.payment_intent === intent);
  };

  it('refuses the initial invoice’s refund once the order was refunded', async () => {
    const { orderId, invoiceId, intent } = await subscribe();
    const first = await refund('orders', orderId).expect(200);
    expect(first.body.data.attributes.status).toBe('refunded');
    const second = await refund('subscription-invoices', invoiceId).expect(422);
    expect(second.body.errors[0].code).toBe(
      'refund_payment_refunded_elsewhere',
    );
    expect(stripeRefunds(intent).map((r) => r.amount)).toEqual([1200]);
    const invoice = await get(`/v1/subscription-invoices/${invoiceId}`);
    expect(invoice.body.data.attributes).toMatchObject({
      status: 'paid',
      refunded_amount: 0,
    });
  });

  it('refuses the order’s refund once the initial invoice was partly refunded, and refunds the rest there', async () => {
    const { orderId, invoiceId, intent } = await subscribe();
    await refund('subscription-invoices', invoiceId, 200).expect(200);
    const refused = await refund('orders', orderId).expect(422);
    expect(refused.body.errors[0].code).toBe(
      'refund_payment_refunded_elsewhere',
    );
    const rest = await refund('subscription-invoices', invoiceId).expect(200);
    expect(rest.body.data.attributes).toMatchObject({
      status: 'refunded',
      refunded_amount: 1200,
    });
    expect(
      stripeRefunds(intent)
        .map((r) => Number(r.amount))
        .sort((a, b) => a - b),
    ).toEqual([200, 1000]);
  });

  it('refuses the second of two partial refunds at once, whichever asks second', async () => {
    // Stripe itself refuses refunding more than the charge; two partial
    // refunds within it would both go through there.
    const { orderId, invoiceId, intent } = await subscribe();
    const answers = await Promise.all([
      refund('orders', orderId, 500),
      refund('subscription-invoices', invoiceId, 500),
    ]);
    expect(answers.map((a) => a.status).sort((a, b) => a - b)).toEqual([
      200, 422,
    ]);
    expect(stripeRefunds(intent).map((r) => r.amount)).toEqual([500]);
  });
});
