import request from 'supertest';
import { DataSource } from 'typeorm';
import { PaymentAttempts } from '../../src/modules/payment/payment-attempts';
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

const KEYS = stripeKeys('KeyInUse');

async function waitFor(read: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Stripe answers 409 `idempotency_key_in_use` while another request with
 * the same key is being processed: here the sweeper replays a refund whose
 * request is still at Stripe. That request's outcome decides: the replay
 * retries after a backoff and gets the stored answer, or, still in use,
 * leaves the attempt pending; it never settles it as failed.
 */
describe('Stripe’s idempotency_key_in_use', () => {
  let double: StripeDouble;
  let t: TestApp;
  let key: string;
  let url: string;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    const merchant = await createMerchant(t.app, ['Key In Use']);
    key = merchant.testKey;
    const storeId = merchant.stores[0].id;
    await connectStripe(t.baseUrl, key, storeId, KEYS);
    const { product } = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      { unit_price: 1500 },
      { name: 'Brushes' },
    );
    url = await buyNowUrl(t.baseUrl, key, product.id);
  });
  afterAll(async () => {
    await t?.close();
    await double?.stop();
  });

  /** An order paid through the Payment Element. */
  async function paidOrder(): Promise<string> {
    const page = await stripePage(t.baseUrl, url);
    const submitted = await submitStripe(t.baseUrl, url, page.token);
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
    const [{ id }] = (await t.app
      .get(DataSource)
      .query(`SELECT id::text AS id FROM orders WHERE identifier = $1`, [
        identifier,
      ])) as { id: string }[];
    return id;
  }

  const refund = (orderId: string) =>
    request(t.baseUrl)
      .post(`/v1/orders/${orderId}/refund`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: orderId, attributes: {} },
        }),
      )
      .then((response) => response);
  const refundAttempt = async (orderId: string) =>
    (
      (await t.app.get(DataSource).query(
        `SELECT status, idempotency_key FROM payment_attempts
            WHERE kind = 'refund' AND subject_id = $1`,
        [Number(orderId)],
      )) as { status: string; idempotency_key: string }[]
    )[0];
  const refundsAtStripe = () => double.list(KEYS.secret_key, 'refund');

  /** Starts the order's refund, with Stripe taking `ms` on it; resolves once Stripe has it. */
  async function refundInFlight(orderId: string, ms: number) {
    double.slowRequests('/v1/refunds', ms);
    const requests = double.requests.length;
    const pending = refund(orderId);
    await waitFor(async () =>
      double.requests
        .slice(requests)
        .some((r) => r.method === 'POST' && r.path === '/v1/refunds'),
    );
    // Wrapped: an async function's returned promise would be awaited.
    return { response: pending };
  }

  it('retries a replay whose key is in use and takes the first request’s outcome', async () => {
    const orderId = await paidOrder();
    const before = refundsAtStripe().length;
    const first = (await refundInFlight(orderId, 4_000)).response;
    // The sweeper replays the attempt while its request is at Stripe.
    const settled = await t.app.get(PaymentAttempts).sweep(0);
    expect((await refundAttempt(orderId)).status).toBe('succeeded');
    expect(settled).toBe(1);
    expect((await first).status).toBe(200);
    expect(refundsAtStripe().length - before).toBe(1);
    const order = await request(t.baseUrl)
      .get(`/v1/orders/${orderId}`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(order.body.data.attributes).toMatchObject({
      status: 'refunded',
      refunded_amount: 1500,
    });
  }, 30_000);

  it('leaves the attempt pending when the key stays in use, for the first request to settle', async () => {
    const orderId = await paidOrder();
    const before = refundsAtStripe().length;
    const first = (await refundInFlight(orderId, 12_000)).response;
    const attempt = await refundAttempt(orderId);
    const requests = double.requests.length;
    expect(await t.app.get(PaymentAttempts).sweep(0)).toBe(0);
    // The replay was answered 409 several times, then left alone.
    const replays = double.requests
      .slice(requests)
      .filter((r) => r.idempotencyKey === attempt.idempotency_key);
    expect(replays.length).toBeGreaterThan(3);
    expect((await refundAttempt(orderId)).status).toBe('pending');
    expect((await first).status).toBe(200);
    expect((await refundAttempt(orderId)).status).toBe('succeeded');
    expect(refundsAtStripe().length - before).toBe(1);
  }, 40_000);
});
