import { Client } from 'pg';
import request from 'supertest';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
  updateStore,
} from '../support/factories';
import { connectStripe, stripeKeys } from '../support/stripe-checkout';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';

const TEST_KEYS = stripeKeys('StoreTwo');
const LIVE_KEYS = stripeKeys('StoreTwo', 'live');

/**
 * Issue 25 item 4: a store that connected Stripe for a mode pays through
 * its Stripe account (here the double, through STRIPE_API_URL); the others
 * keep the test gateway in test mode and cannot sell live.
 */
describe('Stripe as the payment processor of a connected store', () => {
  let double: StripeDouble;
  let t: TestApp;
  let merchant: Merchant;
  let plainUrl: string;
  let stripeUrl: string;
  let stripeLiveUrl: string;
  let db: Client;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    merchant = await createMerchant(t.app, [
      'Plain Store',
      'Stripe Store',
      'Switching Store',
    ]);
    const [plain, connected] = merchant.stores;
    const product = async (storeId: number, key: string) => {
      const { product } = await createPricedProduct(
        t.baseUrl,
        key,
        storeId,
        { unit_price: 1500 },
        { name: 'Brushes' },
      );
      return buyNowUrl(t.baseUrl, key, product.id);
    };
    plainUrl = await product(plain.id, merchant.testKey);
    stripeUrl = await product(connected.id, merchant.testKey);
    stripeLiveUrl = await product(connected.id, merchant.liveKey);
    await connectStripe(t.baseUrl, merchant.testKey, connected.id, TEST_KEYS);
    await connectStripe(t.baseUrl, merchant.liveKey, connected.id, LIVE_KEYS);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
    await double.stop();
  });

  const count = async (table: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

  it('keeps the test gateway for a store without Stripe', async () => {
    const bought = await buy(t.baseUrl, plainUrl).expect(201);
    expect(bought.body.data.attributes.status).toBe('paid');
    expect(double.requests).toHaveLength(0);
  });

  it('refuses card numbers for a Stripe store, in test and live mode, writing nothing: cards go through the hosted page', async () => {
    const orders = await count('orders');
    const attempts = await count('payment_attempts');
    for (const url of [stripeUrl, stripeLiveUrl]) {
      const refused = await buy(t.baseUrl, url).expect(422);
      expect(refused.body.errors[0]).toMatchObject({
        code: 'hosted_payment_required',
        source: { pointer: '/card_number' },
      });
    }
    expect(await count('orders')).toBe(orders);
    expect(await count('payment_attempts')).toBe(attempts);
    expect(double.requests).toHaveLength(0);
  });

  it('refunds a payment the test gateway took through the test gateway after the store connects Stripe', async () => {
    const store = merchant.stores[2];
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      store.id,
      { unit_price: 900 },
      { name: 'Old Stock' },
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);
    const bought = await buy(t.baseUrl, url).expect(201);
    const patch = (attributes: Record<string, unknown>) =>
      updateStore(t.baseUrl, merchant.testKey, store.id, attributes);
    await patch({
      stripe: { ...TEST_KEYS, secret_key: 'sk_test_51SwitchingAbCdEfGhIj' },
    }).expect(200);
    const refunded = await request(t.baseUrl)
      .post(`/v1/orders/${bought.body.data.id}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: bought.body.data.id, attributes: {} },
        }),
      )
      .expect(200);
    expect(refunded.body.data.attributes.status).toBe('refunded');
    expect(double.requests).toHaveLength(0);
    // New purchases at the store now need Stripe.
    const refused = await buy(t.baseUrl, url).expect(422);
    expect(refused.body.errors[0].code).toBe('hosted_payment_required');
  });
});
