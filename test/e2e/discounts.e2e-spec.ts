import { Client } from 'pg';
import request from 'supertest';
import {
  createDiscount,
  deleteDiscount,
  getDiscount,
  getDiscountRedemption,
  listDiscountRedemptions,
  listDiscounts,
} from '@lemonsqueezy/lemonsqueezy.js';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

describe('discounts and redemptions', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let storeId: number;
  let variantId: string;
  let buyUrl: string;
  let db: Client;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Discount Store', 'Rush Store']);
    other = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 5000 },
    );
    variantId = priced.variantId;
    buyUrl = await buyNowUrl(t.baseUrl, merchant.testKey, priced.product.id);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const post = (attributes: Record<string, unknown>, extra: object = {}) =>
    request(t.baseUrl)
      .post('/v1/discounts')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'discounts',
            attributes: {
              name: 'Launch',
              amount: 20,
              amount_type: 'percent',
              ...attributes,
            },
            relationships: {
              store: { data: { type: 'stores', id: String(storeId) } },
              ...extra,
            },
          },
        }),
      );
  const get = (path: string, key = merchant.testKey) =>
    request(t.baseUrl).get(path).set('Authorization', `Bearer ${key}`);
  const count = async (table: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

  it('creates a discount with the reference’s 17 attributes and defaults', async () => {
    const response = await post({ code: 'LAUNCH20' }).expect(201);
    const discount = response.body.data;
    expect(Object.keys(discount.attributes)).toEqual([
      'store_id',
      'name',
      'code',
      'amount',
      'amount_type',
      'is_limited_to_products',
      'is_limited_redemptions',
      'max_redemptions',
      'starts_at',
      'expires_at',
      'duration',
      'duration_in_months',
      'status',
      'status_formatted',
      'created_at',
      'updated_at',
      'test_mode',
    ]);
    expect(discount.attributes).toMatchObject({
      store_id: storeId,
      code: 'LAUNCH20',
      duration: 'once',
      duration_in_months: 1,
      status: 'published',
      status_formatted: 'Published',
      starts_at: null,
      expires_at: null,
      test_mode: true,
    });
    expect(Object.keys(discount.relationships)).toEqual([
      'store',
      'variants',
      'discount-redemptions',
    ]);
  });

  it('refuses invalid discounts with 4xx and writes nothing', async () => {
    const before = await count('discounts');
    const cases: [Record<string, unknown>, number, string][] = [
      [{ code: 'lower' }, 422, '/data/attributes/code'],
      [{ code: 'AB' }, 422, '/data/attributes/code'],
      [{ code: 'HAS SPACE' }, 422, '/data/attributes/code'],
      [{ code: 'LAUNCH20' }, 422, '/data/attributes/code'],
      [{ code: 'OVER100', amount: 101 }, 422, '/data/attributes/amount'],
      [
        { code: 'FREEFIXED', amount: 0, amount_type: 'fixed' },
        422,
        '/data/attributes/amount',
      ],
      [
        { code: 'FREEPERCENT', amount: 0, amount_type: 'percent' },
        422,
        '/data/attributes/amount',
      ],
      [
        { code: 'BADTYPE', amount_type: 'half' },
        422,
        '/data/attributes/amount_type',
      ],
      [
        { code: 'NOMAX', is_limited_redemptions: true },
        422,
        '/data/attributes/max_redemptions',
      ],
      [
        { code: 'BADDATE', starts_at: 'tomorrow' },
        422,
        '/data/attributes/starts_at',
      ],
      [
        {
          code: 'BACKWARDS',
          starts_at: '2030-01-02T00:00:00Z',
          expires_at: '2030-01-01T00:00:00Z',
        },
        422,
        '/data/attributes/expires_at',
      ],
      [
        { code: 'LIVEMODE', test_mode: false },
        422,
        '/data/attributes/test_mode',
      ],
      [{ code: 'STRINGAMOUNT', amount: '1.5' }, 422, '/data/attributes/amount'],
      [
        { code: 'NOVARIANTS', is_limited_to_products: true },
        422,
        '/data/relationships/variants',
      ],
    ];
    for (const [attributes, status, pointer] of cases) {
      const response = await post(attributes).expect(status);
      expect(response.body.errors[0].source).toEqual({ pointer });
    }
    await post(
      { code: 'FOREIGNVAR', is_limited_to_products: true },
      { variants: { data: [{ type: 'variants', id: '999999' }] } },
    ).expect(404);
    await request(t.baseUrl)
      .post('/v1/discounts')
      .set('Authorization', `Bearer ${other.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'discounts',
            attributes: {
              name: 'X',
              code: 'OTHERS',
              amount: 1,
              amount_type: 'fixed',
            },
            relationships: {
              store: { data: { type: 'stores', id: String(storeId) } },
            },
          },
        }),
      )
      .expect(404);
    expect(await count('discounts')).toBe(before);
  });

  it('applies codes at checkout and refuses unusable ones with a clear 422', async () => {
    await post({ code: 'TENOFF', amount: 1000, amount_type: 'fixed' }).expect(
      201,
    );
    await post({
      code: 'LATER',
      starts_at: '2999-01-01T00:00:00.000000Z',
    }).expect(201);
    await post({
      code: 'OLD',
      starts_at: '2020-01-01T00:00:00Z',
      expires_at: '2021-01-01T00:00:00Z',
    }).expect(201);
    const elsewhere = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
    );
    await post(
      { code: 'ONLYOTHER', is_limited_to_products: true },
      { variants: { data: [{ type: 'variants', id: elsewhere.variantId }] } },
    ).expect(201);
    const usedUp = await post({
      code: 'ONCE',
      is_limited_redemptions: true,
      max_redemptions: 1,
    }).expect(201);

    const paid = await buy(t.baseUrl, buyUrl, {
      discount_code: 'tenoff',
      variant_id: variantId,
    }).expect(201);
    expect(paid.body.data.attributes).toMatchObject({
      subtotal: 5000,
      discount_total: 1000,
      total: 4000,
      discount_total_formatted: '$10.00',
    });
    const percent = await buy(t.baseUrl, buyUrl, {
      discount_code: 'LAUNCH20',
      variant_id: variantId,
    }).expect(201);
    expect(percent.body.data.attributes.discount_total).toBe(1000);
    await buy(t.baseUrl, buyUrl, {
      discount_code: 'ONCE',
      variant_id: variantId,
    }).expect(201);

    const refusals: [string, RegExp, string][] = [
      ['NOSUCHCODE', /not valid/, 'discount_invalid'],
      ['LATER', /not active yet/, 'discount_not_active'],
      ['OLD', /expired/, 'discount_expired'],
      ['ONCE', /fully redeemed/, 'discount_exhausted'],
      ['ONLYOTHER', /does not apply/, 'discount_not_applicable'],
    ];
    const orders = await count('orders');
    for (const [code, message, errorCode] of refusals) {
      const response = await buy(t.baseUrl, buyUrl, {
        discount_code: code,
        variant_id: variantId,
      }).expect(422);
      expect(response.body.errors[0].detail).toMatch(message);
      expect(response.body.errors[0].source).toEqual({
        pointer: '/discount_code',
      });
      expect(response.body.errors[0].code).toBe(errorCode);
    }
    expect(await count('orders')).toBe(orders);

    const redemptions = await get(
      `/v1/discount-redemptions?filter[discount_id]=${usedUp.body.data.id}`,
    ).expect(200);
    expect(redemptions.body.data).toHaveLength(1);
    expect(Object.keys(redemptions.body.data[0].attributes)).toEqual([
      'discount_id',
      'order_id',
      'discount_name',
      'discount_code',
      'discount_amount',
      'discount_amount_type',
      'amount',
      'created_at',
      'updated_at',
    ]);
    expect(redemptions.body.data[0].attributes.amount).toBe(1000);
  });

  it('redeems a 10-use discount exactly 10 times under 100 parallel purchases', async () => {
    const rush = merchant.stores[1].id;
    const priced = await createPricedProduct(t.baseUrl, merchant.testKey, rush);
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, priced.product.id);
    const created = await request(t.baseUrl)
      .post('/v1/discounts')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'discounts',
            attributes: {
              name: 'Ten only',
              code: 'TENONLY',
              amount: 50,
              amount_type: 'percent',
              is_limited_redemptions: true,
              max_redemptions: 10,
            },
            relationships: {
              store: { data: { type: 'stores', id: String(rush) } },
            },
          },
        }),
      )
      .expect(201);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        buy(t.baseUrl, url, {
          email: `crowd-${i}@example.com`,
          discount_code: 'TENONLY',
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(90);
    const redemptions = await get(
      `/v1/discount-redemptions?filter[discount_id]=${created.body.data.id}&page[size]=100`,
    ).expect(200);
    expect(redemptions.body.meta.page.total).toBe(10);
    const orders = await get(
      `/v1/orders?filter[store_id]=${rush}&page[size]=100`,
    ).expect(200);
    expect(orders.body.meta.page.total).toBe(10);
    expect(
      orders.body.data
        .map(
          (o: { attributes: { order_number: number } }) =>
            o.attributes.order_number,
        )
        .sort((a: number, b: number) => a - b),
    ).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it('drives discounts and redemptions through the official SDK', async () => {
    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      const created = await createDiscount({
        storeId,
        name: 'SDK discount',
        code: 'SDK2026',
        amount: 500,
        amountType: 'fixed',
        isLimitedToProducts: true,
        variantIds: [Number(variantId)],
      });
      expect(created.error).toBeNull();
      const id = created.data!.data.id;
      const one = await getDiscount(id, { include: ['variants'] });
      expect(one.error).toBeNull();
      expect(one.data!.data.attributes.is_limited_to_products).toBe(true);
      expect(one.data!.included?.map((r) => r.id)).toEqual([variantId]);
      const list = await listDiscounts({
        filter: { storeId },
        page: { size: 50 },
      });
      expect(list.error).toBeNull();
      const codes = list.data!.data.map((d) => d.attributes.code);
      expect(codes[0]).toBe('LAUNCH20');
      expect(codes).toContain('SDK2026');

      const bought = await buy(t.baseUrl, buyUrl, {
        discount_code: 'SDK2026',
      }).expect(201);
      const redemptions = await listDiscountRedemptions({
        filter: { orderId: Number(bought.body.data.id) },
      });
      expect(redemptions.error).toBeNull();
      expect(redemptions.data!.data).toHaveLength(1);
      const redemption = await getDiscountRedemption(
        redemptions.data!.data[0].id,
      );
      expect(redemption.data!.data.attributes).toMatchObject({
        discount_code: 'SDK2026',
        discount_amount: 500,
        discount_amount_type: 'fixed',
        amount: 500,
      });

      const removed = await fetch(`${t.baseUrl}/v1/discounts/${id}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${merchant.testKey}` },
      });
      expect(removed.status).toBe(204);
      expect(await removed.text()).toBe('');
      expect((await getDiscount(id)).statusCode).toBe(404);
      expect((await deleteDiscount(id)).statusCode).toBe(404);
      // The code is free again once its discount is deleted.
      await post({ code: 'SDK2026' }).expect(201);
      // Redemptions outlive their discount.
      expect(
        (await getDiscountRedemption(redemptions.data!.data[0].id)).statusCode,
      ).toBe(200);
      await get(`/v1/discounts/${id}`, other.testKey).expect(404);
    } finally {
      restore();
    }
  });
});
