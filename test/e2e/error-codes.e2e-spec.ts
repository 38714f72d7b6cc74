import request from 'supertest';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  createProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

interface Case {
  name: string;
  method: 'get' | 'post' | 'patch';
  path: () => string;
  body?: () => object;
  auth?: false;
  status: number;
  code: string;
  source?: () => object;
}

/**
 * Each error object's `code` over real HTTP, one or more per module, with the
 * status, detail and source that the error had before codes existed.
 */
describe('error codes', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let productId: string;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    productId = (
      await createProduct(t.baseUrl, merchant.testKey, storeId, {
        name: 'Ebook',
      })
    ).id;
  });
  afterAll(() => t.close());

  const store = () => ({
    store: { data: { type: 'stores', id: String(storeId) } },
  });
  const write = (
    type: string,
    attributes: object,
    relationships: object = store(),
  ) => ({ data: { type, attributes, relationships } });

  const cases: Case[] = [
    {
      name: 'no API key',
      method: 'get',
      path: () => '/v1/stores',
      auth: false,
      status: 401,
      code: 'authentication_required',
    },
    {
      name: 'unknown route',
      method: 'get',
      path: () => '/v1/no-such-thing',
      status: 404,
      code: 'route_not_found',
    },
    {
      name: 'unknown query parameter',
      method: 'get',
      path: () => '/v1/stores?colour=red',
      status: 400,
      code: 'unknown_parameter',
      source: () => ({ parameter: 'colour' }),
    },
    {
      name: 'a store that is not the caller’s',
      method: 'get',
      path: () => '/v1/stores/999999',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'store: a malformed slug',
      method: 'patch',
      path: () => `/v1/stores/${storeId}`,
      body: () => ({
        data: {
          type: 'stores',
          id: String(storeId),
          attributes: { slug: 'Not A Slug' },
        },
      }),
      status: 422,
      code: 'invalid_slug',
      source: () => ({ pointer: '/data/attributes/slug' }),
    },
    {
      name: 'catalog: a product in an unknown store',
      method: 'post',
      path: () => '/v1/products',
      body: () =>
        write(
          'products',
          { name: 'Ghost' },
          { store: { data: { type: 'stores', id: '999999' } } },
        ),
      status: 404,
      code: 'store_not_found',
      source: () => ({ pointer: '/data/relationships/store' }),
    },
    {
      name: 'catalog: a slug already taken',
      method: 'post',
      path: () => '/v1/products',
      body: () => write('products', { name: 'Again', slug: 'ebook' }),
      status: 422,
      code: 'slug_taken',
      source: () => ({ pointer: '/data/attributes/slug' }),
    },
    {
      name: 'customer: a customer in an unknown store',
      method: 'post',
      path: () => '/v1/customers',
      body: () =>
        write(
          'customers',
          { name: 'Ada', email: 'ada@example.com' },
          { store: { data: { type: 'stores', id: '999999' } } },
        ),
      status: 404,
      code: 'store_not_found',
      source: () => ({ pointer: '/data/relationships/store' }),
    },
    {
      name: 'discount: a percent over 100',
      method: 'post',
      path: () => '/v1/discounts',
      body: () =>
        write('discounts', {
          name: 'Too much',
          code: 'TOOMUCH',
          amount: 150,
          amount_type: 'percent',
        }),
      status: 422,
      code: 'discount_percent_over_100',
      source: () => ({ pointer: '/data/attributes/amount' }),
    },
    {
      name: 'checkout: an unknown variant',
      method: 'post',
      path: () => '/v1/checkouts',
      body: () =>
        write(
          'checkouts',
          {},
          {
            ...store(),
            variant: { data: { type: 'variants', id: '999999' } },
          },
        ),
      status: 404,
      code: 'variant_not_found',
      source: () => ({ pointer: '/data/relationships/variant' }),
    },
    {
      name: 'webhooks: a live-mode webhook with a test key',
      method: 'post',
      path: () => '/v1/webhooks',
      body: () =>
        write('webhooks', {
          url: 'https://hooks.example.com/zest',
          events: ['order_created'],
          secret: 'valid-secret',
          test_mode: false,
        }),
      status: 422,
      code: 'test_mode_mismatch',
      source: () => ({ pointer: '/data/attributes/test_mode' }),
    },
    {
      name: 'billing: usage without its subscription item',
      method: 'post',
      path: () => '/v1/usage-records',
      body: () => write('usage-records', { quantity: 1 }, {}),
      status: 422,
      code: 'relationship_required',
      source: () => ({ pointer: '/data/relationships/subscription-item' }),
    },
    {
      name: 'document: a PATCH whose id differs from the URL',
      method: 'patch',
      path: () => `/v1/products/${productId}`,
      body: () => ({
        data: { type: 'products', id: '999999', attributes: { name: 'X' } },
      }),
      status: 409,
      code: 'id_mismatch',
      source: () => ({ pointer: '/data/id' }),
    },
  ];

  it.each(cases)('$name → $status $code', async (c) => {
    let call = request(t.baseUrl)[c.method](c.path());
    if (c.auth !== false)
      call = call.set('Authorization', `Bearer ${merchant.testKey}`);
    if (c.body)
      call = call
        .set('Content-Type', 'application/vnd.api+json')
        .send(JSON.stringify(c.body()));
    const response = await call;
    expect(response.status).toBe(c.status);
    expect(response.body.errors).toHaveLength(1);
    const [error] = response.body.errors;
    expect(error.code).toBe(c.code);
    expect(error.status).toBe(String(c.status));
    if (c.source) expect(error.source).toEqual(c.source());
    else expect(error.source).toBeUndefined();
  });

  it('names the purchase’s, the order’s and the invoice’s refusals', async () => {
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2500 },
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);
    const refusal = async (buyer: Parameters<typeof buy>[2], status: number) =>
      (await buy(t.baseUrl, url, buyer).expect(status)).body.errors[0];
    expect(await refusal({ quantity: 0 }, 422)).toMatchObject({
      code: 'invalid_quantity',
      source: { pointer: '/quantity' },
    });
    expect(await refusal({ card_number: '' }, 422)).toMatchObject({
      code: 'card_number_required',
      source: { pointer: '/card_number' },
    });
    expect(await refusal({ card_number: '1234' }, 422)).toMatchObject({
      code: 'invalid_card_number',
      source: { pointer: '/card_number' },
    });
    expect(
      await refusal({ billing_address: { country: 'XX' } }, 422),
    ).toMatchObject({
      code: 'invalid_input',
      source: { pointer: '/billing_address/country' },
    });
    const order = (await buy(t.baseUrl, url).expect(201)).body.data;
    const refund = await request(t.baseUrl)
      .post(`/v1/orders/${order.id}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: order.id, attributes: { amount: 2501 } },
        }),
      )
      .expect(422);
    expect(refund.body.errors[0]).toMatchObject({
      code: 'refund_exceeds_balance',
      detail: 'The amount may be at most 2500 cents, what is left to refund.',
      source: { pointer: '/data/attributes/amount' },
    });
    const invoice = await request(t.baseUrl)
      .post(`/v1/orders/${order.id}/generate-invoice?colour=red`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(400);
    expect(invoice.body.errors[0]).toMatchObject({
      code: 'unknown_parameter',
      source: { parameter: 'colour' },
    });
  });

  it('gives every error of a multi-field refusal its code', async () => {
    const response = await request(t.baseUrl)
      .post('/v1/customers')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify(write('customers', { name: 42, email: 7 })))
      .expect(422);
    expect(response.body.errors.length).toBeGreaterThan(1);
    for (const error of response.body.errors)
      expect(error.code).toBe('invalid_attribute');
  });

  it('keeps the License API’s plain-JSON body as it was: no code member', async () => {
    const response = await request(t.baseUrl)
      .post('/v1/licenses/activate')
      .type('form')
      .send({ license_key: 'no-such-key', instance_name: 'laptop' })
      .expect(404);
    expect(response.body).toEqual({
      activated: false,
      error: 'license_key not found',
    });
  });
});
