import request from 'supertest';
import {
  activateLicense,
  getLicenseKey,
  listLicenseKeys,
} from '@lemonsqueezy/lemonsqueezy.js';
import { DataSource } from 'typeorm';
import {
  createMerchant,
  createPrice,
  createProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

type Resource = {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
};

describe('license keys issued by purchases', () => {
  let t: TestApp;
  let merchant: Merchant;
  let restoreFetch: () => void;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Software Shop']);
    restoreFetch = useSdkAgainst(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    restoreFetch();
    await t.close();
  });

  const api = (method: 'get', path: string) =>
    request(t.baseUrl)
      [method](path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Accept', 'application/vnd.api+json');

  /** A published product with a priced variant of the given license settings; its buy_now_url. */
  async function licensedProduct(variant: Record<string, unknown>) {
    const key = merchant.testKey;
    const product = await createProduct(t.baseUrl, key, merchant.stores[0].id);
    const created = await createVariant(t.baseUrl, key, product.id, {
      status: 'published',
      ...variant,
    });
    await createPrice(t.baseUrl, key, created.id);
    const read = await api('get', `/v1/products/${product.id}`).expect(200);
    return {
      productId: Number(product.id),
      variantId: Number(created.id),
      buyNowUrl: String(read.body.data.attributes.buy_now_url),
    };
  }

  const buy = (
    offer: { buyNowUrl: string; variantId: number },
    fields: Record<string, unknown>,
  ) =>
    request(t.baseUrl)
      .post(new URL(offer.buyNowUrl).pathname)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          email: 'grace@example.com',
          name: 'Grace Hopper',
          billing_address: { country: 'US', zip: '10001' },
          card_number: '4242424242424242',
          variant_id: String(offer.variantId),
          ...fields,
        }),
      );

  const events = (name: string) =>
    t.app
      .get(DataSource)
      .query<{ data: Resource }[]>(
        `SELECT data FROM webhook_events WHERE name = $1 ORDER BY id`,
        [name],
      );

  it('issues one key per unit in the purchase transaction, with the variant’s limit and length', async () => {
    const offer = await licensedProduct({
      has_license_keys: true,
      license_activation_limit: 2,
      is_license_limit_unlimited: false,
      license_length_value: 1,
      license_length_unit: 'years',
      is_license_length_unlimited: false,
    });
    const purchased = await buy(offer, { quantity: 3 }).expect(201);
    const orderId = Number(purchased.body.data.id);

    const { statusCode, data } = await listLicenseKeys({
      filter: { orderId },
    });
    expect(statusCode).toBe(200);
    const keys = (data as unknown as { data: Resource[] }).data;
    expect(keys).toHaveLength(3);
    expect(new Set(keys.map((k) => k.attributes.key)).size).toBe(3);
    for (const key of keys) {
      expect(key.attributes).toMatchObject({
        order_id: orderId,
        product_id: offer.productId,
        user_name: 'Grace Hopper',
        user_email: 'grace@example.com',
        activation_limit: 2,
        instances_count: 0,
        status: 'inactive',
        test_mode: true,
      });
      const created = new Date(String(key.attributes.created_at));
      const expires = new Date(String(key.attributes.expires_at));
      expect(expires.getUTCFullYear()).toBe(created.getUTCFullYear() + 1);
      expect(expires.getUTCMonth()).toBe(created.getUTCMonth());
    }
    const orderItemIds = new Set(keys.map((k) => k.attributes.order_item_id));
    expect(orderItemIds.size).toBe(1);

    const createdEvents = (await events('license_key_created')).map(
      (e) => e.data.id,
    );
    expect(createdEvents).toEqual(
      expect.arrayContaining(keys.map((k) => k.id)),
    );

    // The key works on the License API and reports the purchase in meta.
    const activated = await activateLicense(
      String(keys[0].attributes.key),
      'Build server',
    );
    expect(activated.statusCode).toBe(200);
    expect(activated.data?.meta).toEqual({
      store_id: merchant.stores[0].id,
      order_id: orderId,
      order_item_id: keys[0].attributes.order_item_id,
      product_id: offer.productId,
      product_name: expect.any(String),
      variant_id: offer.variantId,
      variant_name: expect.any(String),
      customer_id: keys[0].attributes.customer_id,
      customer_name: 'Grace Hopper',
      customer_email: 'grace@example.com',
    });

    const one = await getLicenseKey(keys[0].id, { include: ['order'] });
    expect(one.statusCode).toBe(200);
    expect(one.data?.data.attributes.status).toBe('active');
    expect(
      (one.data as unknown as { included: Resource[] }).included[0],
    ).toMatchObject({ type: 'orders', id: String(orderId) });
  });

  it('gives unlimited keys a null limit and expiry, and issues none for variants without keys or declined cards', async () => {
    const unlimited = await licensedProduct({
      has_license_keys: true,
      is_license_limit_unlimited: true,
      is_license_length_unlimited: true,
    });
    const order = await buy(unlimited, {}).expect(201);
    const keys = await api(
      'get',
      `/v1/license-keys?filter[order_id]=${order.body.data.id}`,
    ).expect(200);
    expect(keys.body.data).toHaveLength(1);
    expect(keys.body.data[0].attributes).toMatchObject({
      activation_limit: null,
      expires_at: null,
    });

    const plain = await licensedProduct({ has_license_keys: false });
    const plainOrder = await buy(plain, { quantity: 2 }).expect(201);
    const none = await api(
      'get',
      `/v1/license-keys?filter[order_id]=${plainOrder.body.data.id}`,
    ).expect(200);
    expect(none.body.data).toEqual([]);

    const before = (await events('license_key_created')).length;
    const declined = await buy(unlimited, {
      card_number: '4000000000000002',
    });
    expect(declined.status).toBeGreaterThanOrEqual(400);
    expect(declined.status).toBeLessThan(500);
    expect(await events('license_key_created')).toHaveLength(before);
  });
});
