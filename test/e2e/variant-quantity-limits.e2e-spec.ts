import request from 'supertest';
import { buySubscription } from '../support/billing';
import { buy, buyNowUrl, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

type Attributes = Record<string, unknown>;

const unescape = (html: string) =>
  html.replace(/&amp;/g, '&').replace(/&quot;/g, '"');

describe('quantity limits per variant (min_quantity, max_quantity)', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
  });
  afterAll(() => t.close());

  const send = (
    method: 'get' | 'patch' | 'post',
    path: string,
    body?: object,
  ) =>
    request(t.baseUrl)
      [method](path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Accept', 'application/vnd.api+json')
      .set('Content-Type', 'application/vnd.api+json')
      .send(body);

  const patchVariant = (id: string, attributes: Attributes) =>
    send('patch', `/v1/variants/${id}`, {
      data: { type: 'variants', id, attributes },
    });

  const codes = (body: { errors: { code: string }[] }) =>
    body.errors.map((e) => e.code);

  it('defaults to 1–1000, validates PATCH and POST, and refuses min above max', async () => {
    const { product, variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
    );
    const read = await send('get', `/v1/variants/${variantId}`).expect(200);
    expect(read.body.data.attributes).toMatchObject({
      min_quantity: 1,
      max_quantity: 1000,
    });

    const set = await patchVariant(variantId, {
      min_quantity: 2,
      max_quantity: 5,
    }).expect(200);
    expect(set.body.data.attributes).toMatchObject({
      min_quantity: 2,
      max_quantity: 5,
    });

    // Against the stored maximum, one attribute at a time.
    const inverted = await patchVariant(variantId, { min_quantity: 6 }).expect(
      422,
    );
    expect(codes(inverted.body)).toEqual(['quantity_limits_inverted']);
    for (const attributes of [
      { min_quantity: 0 },
      { max_quantity: 10001 },
      { min_quantity: 1.5 },
      { max_quantity: 'five' },
      { min_quantity: null },
    ]) {
      const refused = await patchVariant(variantId, attributes);
      expect([JSON.stringify(attributes), refused.status]).toEqual([
        JSON.stringify(attributes),
        422,
      ]);
    }
    const unchanged = await send('get', `/v1/variants/${variantId}`);
    expect(unchanged.body.data.attributes).toMatchObject({
      min_quantity: 2,
      max_quantity: 5,
    });

    const created = await send('post', '/v1/variants', {
      data: {
        type: 'variants',
        attributes: { name: 'Team', min_quantity: 10, max_quantity: 3 },
        relationships: {
          product: { data: { type: 'products', id: product.id } },
        },
      },
    }).expect(422);
    expect(codes(created.body)).toEqual(['quantity_limits_inverted']);
  });

  it('enforces the limits at the checkout: the page shows them, the purchase refuses the rest', async () => {
    const { product, variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
    );
    await patchVariant(variantId, { min_quantity: 2, max_quantity: 5 }).expect(
      200,
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);

    const page = await request(t.baseUrl).get(pathOf(url)).expect(200);
    // The default quantity (1) is raised to the minimum.
    expect(page.text).toContain(
      '<input type="number" id="quantity" name="quantity" min="2" max="5" value="2"',
    );
    expect(page.text).toContain('2 to 5');

    for (const quantity of [1, 6]) {
      const refused = await buy(t.baseUrl, url, { quantity }).expect(422);
      expect(codes(refused.body)).toEqual(['invalid_quantity']);
      expect(refused.body.errors[0].detail).toBe(
        'The quantity must be a whole number from 2 to 5.',
      );
    }
    const bought = await buy(t.baseUrl, url, { quantity: 5 }).expect(201);
    expect(bought.body.data.attributes.first_order_item.quantity).toBe(5);
    // No quantity: the variant's minimum.
    const least = await buy(t.baseUrl, url).expect(201);
    expect(least.body.data.attributes.first_order_item.quantity).toBe(2);
  });

  it('enforces them on the API’s subscription-item update and in the portal’s quantity form', async () => {
    const bought = await buySubscription(t.baseUrl, merchant.testKey, storeId, {
      unit_price: 1200,
    });
    await patchVariant(bought.variantId, {
      min_quantity: 2,
      max_quantity: 4,
    }).expect(200);
    const attributes = bought.subscription.attributes;
    const itemId = String(
      (attributes.first_subscription_item as Attributes).id,
    );
    const patchItem = (quantity: number) =>
      send('patch', `/v1/subscription-items/${itemId}`, {
        data: {
          type: 'subscription-items',
          id: itemId,
          attributes: { quantity },
        },
      });

    for (const quantity of [1, 5]) {
      const refused = await patchItem(quantity).expect(422);
      expect(codes(refused.body)).toEqual(['quantity_out_of_range']);
      expect(refused.body.errors[0].detail).toBe(
        'The quantity must be a whole number from 2 to 4.',
      );
    }
    const updated = await patchItem(4).expect(200);
    expect(updated.body.data.attributes.quantity).toBe(4);

    // The portal's form shows the plan's limits and refuses the rest.
    const fresh = await send(
      'get',
      `/v1/subscriptions/${bought.subscription.id}`,
    ).expect(200);
    const pagePath = pathOf(
      fresh.body.data.attributes.urls
        .customer_portal_update_subscription as string,
    );
    const html = (await request(t.baseUrl).get(pagePath).expect(200)).text;
    expect(html).toContain('Seats or units (2 to 4)');
    expect(html).toContain('min="2" max="4" value="4"');
    const action = pathOf(
      unescape(
        /<form method="post" action="([^"]+)" id="quantity-form">/.exec(
          html,
        )![1],
      ),
    );
    for (const quantity of ['1', '5', 'many']) {
      const refused = await request(t.baseUrl)
        .post(action)
        .type('form')
        .send({ quantity })
        .expect(422);
      expect(refused.text).toContain(
        'The quantity must be a whole number from 2 to 4.',
      );
    }
    await request(t.baseUrl)
      .post(action)
      .type('form')
      .send({ quantity: '3' })
      .expect(200);
    const after = await send('get', `/v1/subscription-items/${itemId}`);
    expect(after.body.data.attributes.quantity).toBe(3);
  });
});
