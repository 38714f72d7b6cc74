import request from 'supertest';
import { buySubscription } from '../support/billing';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Integers past what their column holds. PostgreSQL's `integer` ends at
 * 2^31 − 1; before, these reached it and came back as 500 "value … is out of
 * range for type integer". An attribute answers 422 at its pointer; an id
 * that no record can have answers as a missing record does.
 */
describe('integers past their column', () => {
  let t: TestApp;
  let merchant: Merchant;
  let productId: string;
  let variantId: string;
  let subscriptionId: string;

  const TOO_BIG = [2 ** 31, 2 ** 53 - 1];

  const send = (method: 'post' | 'patch', path: string, body: object) =>
    request(t.baseUrl)
      [method](path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify(body));

  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'silent' });
    merchant = await createMerchant(t.app);
    const storeId = merchant.stores[0].id;
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
    );
    productId = priced.product.id;
    variantId = priced.variantId;
    subscriptionId = (
      await buySubscription(t.baseUrl, merchant.testKey, storeId, {
        unit_price: 900,
      })
    ).subscription.id;
  });
  afterAll(() => t.close());

  const variantAttributes = [
    'sort',
    'license_activation_limit',
    'license_length_value',
  ];

  it.each(
    variantAttributes.flatMap((name) => TOO_BIG.map((value) => [name, value])),
  )(
    'POST and PATCH /v1/variants with %s = %d → 422 at its pointer',
    async (name, value) => {
      const created = await send('post', '/v1/variants', {
        data: {
          type: 'variants',
          attributes: { name: 'Big', [name]: value },
          relationships: {
            product: { data: { type: 'products', id: productId } },
          },
        },
      });
      expect(created.status).toBe(422);
      expect(created.body.errors).toEqual([
        expect.objectContaining({
          source: { pointer: `/data/attributes/${name}` },
        }),
      ]);
      const updated = await send('patch', `/v1/variants/${variantId}`, {
        data: {
          type: 'variants',
          id: variantId,
          attributes: { [name]: String(value) },
        },
      });
      expect(updated.status).toBe(422);
      expect(updated.body.errors[0].source).toEqual({
        pointer: `/data/attributes/${name}`,
      });
    },
  );

  it.each(
    ['unit_price', 'renewal_interval_quantity'].flatMap((name) =>
      TOO_BIG.map((value) => [name, value]),
    ),
  )(
    'POST /v1/prices with %s = %d → 422 at its pointer',
    async (name, value) => {
      const response = await send('post', '/v1/prices', {
        data: {
          type: 'prices',
          attributes: {
            category: 'subscription',
            unit_price: 100,
            renewal_interval_unit: 'month',
            renewal_interval_quantity: 1,
            [name]: value,
          },
          relationships: {
            variant: { data: { type: 'variants', id: variantId } },
          },
        },
      });
      expect(response.status).toBe(422);
      expect(response.body.errors[0].source).toEqual({
        pointer: `/data/attributes/${name}`,
      });
    },
  );

  it('PATCH /v1/subscriptions/:id with a variant_id past the column answers as for a variant that does not exist', async () => {
    const patch = (variant_id: number) =>
      send('patch', `/v1/subscriptions/${subscriptionId}`, {
        data: {
          type: 'subscriptions',
          id: subscriptionId,
          attributes: { variant_id },
        },
      });
    // The largest id the column holds, and no variant has it.
    const missing = await patch(2 ** 31 - 1);
    expect(missing.status).toBe(422);
    for (const value of TOO_BIG) {
      const response = await patch(value);
      expect(response.status).toBe(missing.status);
      expect(response.body.errors[0].source).toEqual({
        pointer: '/data/attributes/variant_id',
      });
    }
  });

  it.each([
    '/v1/variants/2147483648',
    '/v1/variants/9007199254740991',
    '/v1/subscriptions/2147483648',
    '/v1/orders/99999999999999999999',
  ])('GET %s → 404', async (path) => {
    await request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(404);
  });

  it('a relationship id past the column is a missing related record (404)', async () => {
    const response = await send('post', '/v1/variants', {
      data: {
        type: 'variants',
        attributes: { name: 'Orphan' },
        relationships: {
          product: { data: { type: 'products', id: '2147483648' } },
        },
      },
    });
    expect(response.status).toBe(404);
    expect(response.body.errors[0]).toMatchObject({
      detail: 'The related resource does not exist.',
      source: { pointer: '/data/relationships/product' },
    });
  });
});
