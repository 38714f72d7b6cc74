import request from 'supertest';
import {
  createCheckout,
  getCheckout,
  listCheckouts,
} from '@lemonsqueezy/lemonsqueezy.js';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const GOOD_CARD = '4242424242424242';

describe('checkouts and the hosted checkout', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let variantId: string;

  beforeAll(async () => {
    t = await startTestApp({
      TAX_RATES: '{"GB":{"name":"VAT","rate":20}}',
      CURRENCY_RATES: '{"EUR":1.1}',
    });
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    ({ variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1999 },
      { name: 'Pixel Font' },
    ));
  });
  afterAll(() => t.close());

  const api = (key = merchant.testKey) => ({
    post: (path: string, body: unknown) =>
      request(t.baseUrl)
        .post(path)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(JSON.stringify(body)),
    get: (path: string) =>
      request(t.baseUrl).get(path).set('Authorization', `Bearer ${key}`),
  });

  const checkoutBody = (
    attributes: Record<string, unknown> = {},
    variant: string = variantId,
    store: number = storeId,
  ) => ({
    data: {
      type: 'checkouts',
      attributes,
      relationships: {
        store: { data: { type: 'stores', id: String(store) } },
        variant: { data: { type: 'variants', id: variant } },
      },
    },
  });

  it('creates a checkout with the reference’s 12 attributes and a preview', async () => {
    const response = await api()
      .post(
        '/v1/checkouts',
        checkoutBody({
          preview: true,
          checkout_data: {
            email: 'buyer@example.com',
            billing_address: { country: 'GB' },
            custom: { user_id: '42' },
          },
          checkout_options: { button_color: '#7047EB', dark: true },
        }),
      )
      .expect(201);
    const checkout = response.body.data;
    expect(checkout.type).toBe('checkouts');
    expect(checkout.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(checkout.attributes)).toEqual([
      'store_id',
      'variant_id',
      'custom_price',
      'product_options',
      'checkout_options',
      'checkout_data',
      'preview',
      'expires_at',
      'created_at',
      'updated_at',
      'test_mode',
      'url',
    ]);
    expect(Object.keys(checkout.attributes.product_options)).toHaveLength(11);
    expect(Object.keys(checkout.attributes.checkout_data)).toHaveLength(7);
    expect(checkout.attributes.checkout_options).toMatchObject({
      button_color: '#7047EB',
      dark: true,
      quantity: 1,
    });
    expect(checkout.attributes.preview).toEqual({
      currency: 'USD',
      currency_rate: 1,
      subtotal: 1999,
      discount_total: 0,
      tax: 400,
      total: 2399,
      subtotal_usd: 1999,
      discount_total_usd: 0,
      tax_usd: 400,
      total_usd: 2399,
      subtotal_formatted: '$19.99',
      discount_total_formatted: '$0.00',
      tax_formatted: '$4.00',
      total_formatted: '$23.99',
    });
    expect(checkout.attributes.created_at).toMatch(TIMESTAMP);
    expect(checkout.attributes.url).toMatch(
      new RegExp(
        `^${t.baseUrl}/checkout/custom/${checkout.id}\\?signature=[0-9a-f]{64}$`,
      ),
    );
    const again = await api().get(`/v1/checkouts/${checkout.id}`).expect(200);
    expect(again.body.data.attributes.preview).toBe(false);
  });

  it('buys through the JSON path of a checkout url', async () => {
    const created = await api()
      .post(
        '/v1/checkouts',
        checkoutBody({ checkout_data: { custom: { ref: 'abc' } } }),
      )
      .expect(201);
    const url = new URL(created.body.data.attributes.url);
    const response = await request(t.baseUrl)
      .post(url.pathname + url.search)
      .send({
        email: 'jane@example.com',
        name: 'Jane Buyer',
        billing_address: { country: 'GB', zip: 'N1 9GU' },
        quantity: 2,
        card_number: GOOD_CARD,
      })
      .expect(201);
    expect(response.headers['content-type']).toMatch(/vnd\.api\+json/);
    const order = response.body.data;
    expect(order.type).toBe('orders');
    expect(Object.keys(order.attributes)).toHaveLength(38);
    expect(order.attributes).toMatchObject({
      order_number: 1,
      status: 'paid',
      subtotal: 3998,
      tax: 800,
      total: 4798,
      tax_name: 'VAT',
      tax_rate: 20,
      user_email: 'jane@example.com',
    });
    expect(Object.keys(order.attributes.first_order_item)).toHaveLength(12);
    const receipt = await request(t.baseUrl)
      .get(
        new URL(order.attributes.urls.receipt).pathname +
          new URL(order.attributes.urls.receipt).search,
      )
      .expect(200);
    expect(receipt.text).toContain('#1');
  });

  it('through the SDK', async () => {
    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      const created = await createCheckout(storeId, variantId, {
        checkoutData: { email: 'sdk@example.com' },
        preview: true,
      });
      expect(created.error).toBeNull();
      const id = created.data!.data.id;
      const one = await getCheckout(id);
      expect(one.data?.data.attributes.checkout_data.email).toBe(
        'sdk@example.com',
      );
      const list = await listCheckouts({ filter: { storeId } });
      expect(list.data?.data.map((c) => c.id)).toContain(id);
    } finally {
      restore();
    }
  });
});
