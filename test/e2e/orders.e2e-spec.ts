import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  getOrder,
  getOrderItem,
  issueOrderRefund,
  listOrderItems,
  listOrders,
} from '@lemonsqueezy/lemonsqueezy.js';
import { buySubscription } from '../support/billing';
import { buy, buyNowUrl, DECLINED_CARD, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { EntityRows } from '../../src/database/entity-rows';
import { RefundStatus1764100000000 } from '../../src/database/migrations/1764100000000-refund-status';
import { Order } from '../../src/modules/order/order.entity';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

interface OrderResource {
  id: string;
  attributes: Record<string, unknown> & {
    order_number: number;
    status: string;
    urls: { receipt: string };
  };
}

describe('orders, order items and refunds', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let storeId: number;
  let productId: string;
  let variantId: string;
  let buyUrl: string;
  let db: Client;

  beforeAll(async () => {
    t = await startTestApp({
      TAX_RATES: '{"DE":{"name":"MwSt.","rate":19}}',
    });
    merchant = await createMerchant(t.app, ['Order Store', 'Rush Store']);
    other = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2500 },
      { name: 'Icon Pack' },
    );
    productId = priced.product.id;
    variantId = priced.variantId;
    buyUrl = await buyNowUrl(t.baseUrl, merchant.testKey, productId);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const get = (path: string, key = merchant.testKey) =>
    request(t.baseUrl).get(path).set('Authorization', `Bearer ${key}`);
  const refund = (id: string, attributes: Record<string, unknown> = {}) =>
    request(t.baseUrl)
      .post(`/v1/orders/${id}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify({ data: { type: 'orders', id, attributes } }));
  const count = async (table: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  const events = async (name: string) =>
    (
      await db.query(
        `SELECT data, data::text AS text FROM webhook_events WHERE name = $1 ORDER BY id`,
        [name],
      )
    ).rows as {
      data: { id: string; attributes: Record<string, unknown> };
      text: string;
    }[];

  it('buys through buy_now_url and shows the order with all 38 attributes and the extension `dispute`', async () => {
    expect(buyUrl).toMatch(/\/checkout\/buy\/[0-9a-f-]{36}$/);
    const response = await buy(t.baseUrl, buyUrl, {
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      billing_address: { country: 'DE', zip: '10115' },
      quantity: 2,
    }).expect(201);
    const order = response.body.data as OrderResource;
    const shown = await get(`/v1/orders/${order.id}`).expect(200);
    const attributes = shown.body.data.attributes;
    expect(Object.keys(attributes)).toEqual([
      'store_id',
      'customer_id',
      'identifier',
      'order_number',
      'user_name',
      'user_email',
      'currency',
      'currency_rate',
      'tax_name',
      'tax_rate',
      'tax_inclusive',
      'status',
      'status_formatted',
      'refunded',
      'refunded_at',
      'subtotal',
      'discount_total',
      'tax',
      'setup_fee',
      'total',
      'refunded_amount',
      'subtotal_usd',
      'discount_total_usd',
      'tax_usd',
      'setup_fee_usd',
      'total_usd',
      'refunded_amount_usd',
      'subtotal_formatted',
      'discount_total_formatted',
      'tax_formatted',
      'setup_fee_formatted',
      'total_formatted',
      'refunded_amount_formatted',
      'first_order_item',
      'urls',
      'created_at',
      'updated_at',
      'test_mode',
      'dispute',
      'tax_note',
      'refunded_tax',
      'tax_evidence',
      'invoice_number',
    ]);
    expect(attributes).toMatchObject({
      store_id: storeId,
      order_number: 1,
      user_name: 'Ada Lovelace',
      user_email: 'ada@example.com',
      currency: 'USD',
      currency_rate: 1,
      tax_name: 'MwSt.',
      tax_rate: 19,
      tax_inclusive: false,
      status: 'paid',
      status_formatted: 'Paid',
      refunded: false,
      refunded_at: null,
      subtotal: 5000,
      discount_total: 0,
      tax: 950,
      total: 5950,
      total_usd: 5950,
      total_formatted: '$59.50',
      tax_formatted: '$9.50',
      test_mode: true,
      dispute: null,
    });
    expect(attributes.first_order_item).toMatchObject({
      order_id: Number(order.id),
      product_id: Number(productId),
      variant_id: Number(variantId),
      product_name: 'Icon Pack',
      price: 2500,
      quantity: 2,
      test_mode: true,
    });
    expect(Object.keys(shown.body.data.relationships)).toEqual([
      'store',
      'customer',
      'order-items',
      'subscriptions',
      'license-keys',
      'discount-redemptions',
    ]);
    const receipt = await request(t.baseUrl)
      .get(pathOf(attributes.urls.receipt))
      .expect(200);
    expect(receipt.headers['content-type']).toMatch(/text\/html/);
    expect(receipt.text).toContain('Icon Pack');
    expect(receipt.text).toContain('$59.50');
    await request(t.baseUrl)
      .get(
        // Flip the signature's last hex digit (always a change).
        pathOf(attributes.urls.receipt).replace(/.$/, (c) =>
          c === '0' ? '1' : '0',
        ),
      )
      .expect(403);
    const created = await events('order_created');
    expect(created.map((e) => e.data.id)).toEqual([order.id]);
    // The event is written by the statement that draws the number: its
    // payload is the order as shown, number included, key order too.
    expect(created[0].text).toBe(JSON.stringify(shown.body.data));
    // The order is another merchant's: not found, as a missing one.
    await get(`/v1/orders/${order.id}`, other.testKey).expect(404);
    await get(`/v1/orders/${order.id}`, merchant.liveKey).expect(404);
    const customers = await get(
      `/v1/customers?filter[email]=ada@example.com`,
    ).expect(200);
    expect(customers.body.data[0].attributes).toMatchObject({
      total_revenue_currency: 5950,
      total_revenue_currency_formatted: '$59.50',
    });
    expect(attributes.customer_id).toBe(Number(customers.body.data[0].id));
    const store = await get(`/v1/stores/${storeId}`).expect(200);
    expect(store.body.data.attributes).toMatchObject({
      total_sales: 1,
      total_revenue: 5950,
      thirty_day_sales: 1,
      thirty_day_revenue: 5950,
    });
  });

  it('records a declined card as a failed order and fires nothing', async () => {
    const before = await events('order_created');
    const response = await buy(t.baseUrl, buyUrl, {
      email: 'declined@example.com',
      card_number: DECLINED_CARD,
    }).expect(402);
    expect(response.body.errors[0].detail).toMatch(/declined/);
    const list = await get(
      `/v1/orders?filter[user_email]=declined@example.com`,
    ).expect(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].attributes).toMatchObject({
      status: 'failed',
      status_formatted: 'Failed',
      order_number: 2,
    });
    expect(await events('order_created')).toHaveLength(before.length);
    await refund(list.body.data[0].id).expect(422);
  });

  it('refuses bad input with 4xx and writes nothing', async () => {
    const orders = await count('orders');
    const customers = await count('customers');
    const missingCard = await buy(t.baseUrl, buyUrl, {
      email: 'nocard@example.com',
      card_number: '',
    }).expect(422);
    expect(missingCard.body.errors[0].source).toEqual({
      pointer: '/card_number',
    });
    const invalid = await buy(t.baseUrl, buyUrl, {
      email: 'not-an-email',
      name: '',
      billing_address: { country: 'XX' },
    }).expect(422);
    expect(
      invalid.body.errors.map(
        (e: { source: { pointer: string } }) => e.source.pointer,
      ),
    ).toEqual(['/email', '/name', '/billing_address/country']);
    await buy(t.baseUrl, buyUrl, { card_number: '1234' }).expect(422);
    await buy(t.baseUrl, buyUrl, { quantity: 0 }).expect(422);
    await buy(t.baseUrl, buyUrl, { variant_id: 999999 }).expect(422);
    await request(t.baseUrl)
      .post(pathOf(buyUrl))
      .set('Content-Type', 'application/json')
      .send('[1,2]')
      .expect(400);
    await request(t.baseUrl)
      .post('/checkout/buy/00000000-0000-4000-8000-000000000000')
      .set('Content-Type', 'application/json')
      .send({})
      .expect(404);
    expect(await count('orders')).toBe(orders);
    expect(await count('customers')).toBe(customers);
  });

  it('refuses live purchases without a live gateway, writing nothing', async () => {
    const live = await createPricedProduct(
      t.baseUrl,
      merchant.liveKey,
      storeId,
    );
    const url = await buyNowUrl(t.baseUrl, merchant.liveKey, live.product.id);
    const orders = await count('orders');
    const response = await buy(t.baseUrl, url).expect(422);
    expect(response.body.errors[0].detail).toBe(
      'Live payments are not configured.',
    );
    expect(await count('orders')).toBe(orders);
  });

  it('refunds in parts through the SDK: paid until the whole remainder is refunded', async () => {
    const bought = await buy(t.baseUrl, buyUrl, {
      email: 'refund@example.com',
    }).expect(201);
    const id = bought.body.data.id as string;
    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      // A partial refund leaves a paid order (spec 3: pending, failed, paid,
      // refunded) that records what went back.
      const partial = await issueOrderRefund(id, 1000);
      expect(partial.error).toBeNull();
      expect(partial.data!.data.attributes).toMatchObject({
        status: 'paid',
        status_formatted: 'Paid',
        refunded: false,
        refunded_at: null,
        refunded_amount: 1000,
        refunded_amount_usd: 1000,
        refunded_amount_formatted: '$10.00',
      });
      const second = await issueOrderRefund(id, 500);
      expect(second.data!.data.attributes).toMatchObject({
        status: 'paid',
        refunded: false,
        refunded_amount: 1500,
      });
    } finally {
      restore();
    }
    const over = await refund(id, { amount: 1001 }).expect(422);
    expect(over.body.errors[0].source).toEqual({
      pointer: '/data/attributes/amount',
    });
    await refund(id, { amount: -5 }).expect(422);
    await refund(id, { amount: 'ten' }).expect(422);
    // The whole remainder (the amount left out) makes it refunded.
    const full = await refund(id).expect(200);
    expect(full.body.data.attributes).toMatchObject({
      status: 'refunded',
      status_formatted: 'Refunded',
      refunded: true,
      refunded_amount: 2500,
      refunded_amount_usd: 2500,
    });
    expect(full.body.data.attributes.refunded_at).not.toBeNull();
    await refund(id, { amount: 1 }).expect(422);
    // order_refunded on every refund, carrying the order as it then was.
    const refunds = await events('order_refunded');
    expect(refunds.map((e) => e.data.id)).toEqual([id, id, id]);
    expect(
      refunds.map((e) => [
        e.data.attributes.status,
        e.data.attributes.refunded_amount,
      ]),
    ).toEqual([
      ['paid', 1000],
      ['paid', 1500],
      ['refunded', 2500],
    ]);
    // Another merchant cannot refund it.
    await request(t.baseUrl)
      .post(`/v1/orders/${id}/refund`)
      .set('Authorization', `Bearer ${other.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify({ data: { type: 'orders', id, attributes: {} } }))
      .expect(404);
  });

  it('gives 50 parallel purchases the order numbers 1..50', async () => {
    const rush = merchant.stores[1].id;
    const priced = await createPricedProduct(t.baseUrl, merchant.testKey, rush);
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, priced.product.id);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        buy(t.baseUrl, url, { email: `rush-${i % 7}@example.com` }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = responses
      .map((r) => (r.body.data as OrderResource).attributes.order_number)
      .sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Each order_created carries the number its order got.
    const announced = new Map(
      (await events('order_created')).map((e) => [
        e.data.id,
        (e.data as OrderResource).attributes.order_number,
      ]),
    );
    for (const response of responses) {
      const order = response.body.data as OrderResource;
      expect(announced.get(order.id)).toBe(order.attributes.order_number);
    }
    const customers = await get(
      `/v1/customers?filter[store_id]=${rush}&page[size]=100`,
    ).expect(200);
    expect(customers.body.meta.page.total).toBe(7);

    // meta.page.total of a store-only list comes from the running totals the
    // orders triggers keep: exact after parallel purchases, per store and mode.
    const rushOrders = await get(
      `/v1/orders?filter[store_id]=${rush}&page[size]=1`,
    ).expect(200);
    expect(rushOrders.body.meta.page.total).toBe(50);
    const counted = async (testMode: boolean) =>
      Number(
        (
          await db.query(
            `SELECT count(*) AS n FROM orders o JOIN stores s ON s.id = o.store_id
              WHERE s.user_id = $1 AND o.test_mode = $2`,
            [merchant.userId, testMode],
          )
        ).rows[0].n,
      );
    const everything = await get('/v1/orders?page[size]=1').expect(200);
    expect(everything.body.meta.page.total).toBe(await counted(true));
    const live = await get(
      `/v1/orders?filter[store_id]=${rush}`,
      merchant.liveKey,
    ).expect(200);
    expect(live.body.meta.page.total).toBe(0);
    const filtered = await get(
      `/v1/orders?filter[store_id]=${rush}&filter[user_email]=rush-0@example.com`,
    ).expect(200);
    expect(filtered.body.meta.page.total).toBe(8);
  });

  it("pages the orders, items and customers of all of a merchant's stores as one list", async () => {
    // Both stores have orders by now (the 50 parallel ones in the second);
    // each store's rows are read in its own index order and merged.
    await buy(t.baseUrl, buyUrl).expect(201);
    const storeIds = merchant.stores.map((store) => store.id);
    // Orders are hand-written SQL; order items and customers go through the
    // query builder (scopedListPage).
    const rush = merchant.stores[1].id;
    // [path, table, sort, ORDER BY, the stores it lists]
    const lists: [string, string, string, string, number[]][] = [
      ['orders', 'orders', '', 'created_at DESC, id DESC', storeIds],
      ['orders', 'orders', 'created_at', 'created_at ASC, id ASC', storeIds],
      ['orders', 'orders', '-total', 'total DESC, id DESC', storeIds],
      [
        'orders',
        'orders',
        'order_number',
        'order_number ASC, id ASC',
        storeIds,
      ],
      ['orders', 'orders', '-updated_at', 'updated_at DESC, id DESC', storeIds],
      // Filtered to one store, a list reads that store's index directly.
      [
        `orders?filter[store_id]=${rush}`,
        'orders',
        'created_at',
        'created_at ASC, id ASC',
        [rush],
      ],
      ['order-items', 'order_items', '', 'id ASC', storeIds],
      [
        'order-items',
        'order_items',
        '-created_at',
        'created_at DESC, id DESC',
        storeIds,
      ],
      ['customers', 'customers', '', 'created_at DESC, id DESC', storeIds],
      [
        'customers',
        'customers',
        'updated_at',
        'updated_at ASC, id ASC',
        storeIds,
      ],
      [
        `customers?filter[store_id]=${rush}`,
        'customers',
        '',
        'created_at DESC, id DESC',
        [rush],
      ],
    ];
    for (const [path, table, sort, orderBy, stores] of lists) {
      const expected = (
        await db.query(
          `SELECT id FROM ${table}
            WHERE store_id = ANY($1) AND test_mode ORDER BY ${orderBy}`,
          [stores],
        )
      ).rows.map((row: { id: number }) => String(row.id));
      expect(expected.length).toBeGreaterThan(5);
      const seen: string[] = [];
      for (let page = 1; ; page++) {
        const response = await get(
          `/v1/${path}${path.includes('?') ? '&' : '?'}page[size]=5&page[number]=${page}${sort ? `&sort=${sort}` : ''}`,
        ).expect(200);
        expect(response.body.meta.page.total).toBe(expected.length);
        const ids = response.body.data.map((r: { id: string }) => r.id);
        if (ids.length === 0) break;
        seen.push(...ids);
      }
      expect(seen).toEqual(expected);
    }
    // Filters apply inside each store; another merchant sees none of it.
    const byEmail = await get(
      '/v1/orders?filter[user_email]=rush-3@example.com',
    ).expect(200);
    expect(byEmail.body.data).toHaveLength(7);
    const outsider = await get('/v1/orders', other.testKey).expect(200);
    expect(outsider.body.data).toEqual([]);
  });

  it('pages orders by cursor (page[after]/page[before]) as page[number] does, stable across inserts', async () => {
    const rush = merchant.stores[1].id;
    const ids = (body: { data: { id: string }[] }) =>
      body.data.map((r) => r.id);
    const pathOf = (link: string) => link.slice(link.indexOf('/v1/'));
    // [list, sort]: one store and all stores, each way round.
    const lists: [string, string][] = [
      [`orders?filter[store_id]=${rush}`, ''],
      [`orders?filter[store_id]=${rush}`, 'created_at'],
      ['orders', ''],
      ['orders', '-total'],
    ];
    for (const [list, sort] of lists) {
      const query = `${list}${list.includes('?') ? '&' : '?'}page[size]=7${sort ? `&sort=${sort}` : ''}`;
      const numbered: string[] = [];
      let total = 0;
      for (let page = 1; ; page++) {
        const response = await get(`/v1/${query}&page[number]=${page}`).expect(
          200,
        );
        total = response.body.meta.page.total;
        if (response.body.data.length === 0) break;
        numbered.push(...ids(response.body));
      }
      expect(numbered.length).toBe(total);
      expect(total).toBeGreaterThan(14);
      // Forwards from the start, following `next` until there is none.
      const forwards: string[] = [];
      let last = '';
      let next: string | undefined = `/v1/${query}&page[after]=`;
      while (next) {
        const response: request.Response = await get(next).expect(200);
        expect(response.body.meta.page).toEqual({ perPage: 7, total });
        expect(response.body.data.length).toBeLessThanOrEqual(7);
        if (forwards.length === 0)
          expect(response.body.links.prev).toBeUndefined();
        else expect(response.body.links.prev).toContain('page%5Bbefore%5D=');
        expect(response.body.links.first).toContain('page%5Bnumber%5D=1');
        forwards.push(...ids(response.body));
        last = next;
        next = response.body.links.next && pathOf(response.body.links.next);
      }
      expect(forwards).toEqual(numbered);
      // Backwards from the last page, following `prev`.
      const backwards: string[] = [];
      let prev: string | undefined = last;
      while (prev) {
        const response: request.Response = await get(prev).expect(200);
        backwards.unshift(...ids(response.body));
        prev = response.body.links.prev && pathOf(response.body.links.prev);
      }
      expect(backwards).toEqual(numbered);
    }

    // New orders go to the top of the newest-first list: numbered pages
    // shift, a cursor page stays where it was.
    const query = '/v1/orders?page[size]=5';
    const first = await get(`${query}&page[after]=`).expect(200);
    const second = await get(`${query}&page[number]=2`).expect(200);
    await buy(t.baseUrl, buyUrl).expect(201);
    await buy(t.baseUrl, buyUrl).expect(201);
    const followed = await get(pathOf(first.body.links.next)).expect(200);
    expect(ids(followed.body)).toEqual(ids(second.body));
    const shifted = await get(`${query}&page[number]=2`).expect(200);
    expect(ids(shifted.body)).toEqual([
      ...ids(first.body).slice(3),
      ...ids(second.body).slice(0, 3),
    ]);
    expect(followed.body.meta.page.total).toBe(second.body.meta.page.total + 2);
    // Before the old second page: the old first page, and before that the
    // two new orders.
    const before = await get(pathOf(followed.body.links.prev)).expect(200);
    expect(ids(before.body)).toEqual(ids(first.body));
    const newest = await get(pathOf(before.body.links.prev)).expect(200);
    const top = await get(`${query}&page[number]=1`).expect(200);
    expect(ids(newest.body)).toEqual(ids(top.body).slice(0, 2));
    expect(newest.body.links.prev).toBeUndefined();

    // Another merchant's cursor names nothing it can see.
    const foreign = await get(
      pathOf(first.body.links.next),
      other.testKey,
    ).expect(200);
    expect(foreign.body.data).toEqual([]);

    const bad = async (path: string, code: string, parameter: string) => {
      const response = await get(path).expect(400);
      expect(response.body.errors[0]).toMatchObject({
        code,
        source: { parameter },
      });
    };
    await bad(
      '/v1/orders?page[after]=not-a-cursor!',
      'invalid_parameter',
      'page[after]',
    );
    await bad(
      `/v1/orders?page[after]=${Buffer.from('{"id":"1"}').toString('base64url')}`,
      'invalid_parameter',
      'page[after]',
    );
    await bad('/v1/orders?page[before]=', 'invalid_parameter', 'page[before]');
    await bad(
      '/v1/orders?page[after]=&page[number]=2',
      'invalid_parameter',
      'page[after]',
    );
    await bad(
      '/v1/orders?page[after]=&page[before]=eyJpZCI6MX0',
      'invalid_parameter',
      'page[after]',
    );
    await bad(
      '/v1/orders?page[after]=&sort=-total,created_at',
      'invalid_parameter',
      'page[after]',
    );
    await bad('/v1/products?page[after]=', 'unknown_parameter', 'page[after]');
  });

  it('refuses to commit an order that was not numbered', async () => {
    // Purchases write the order first and number it just before the commit;
    // a deferred constraint makes a forgotten number fail the commit.
    const before = await count('orders');
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO orders
       SELECT * FROM jsonb_populate_record(null::orders, (
         SELECT to_jsonb(o) || jsonb_build_object(
                  'id', nextval('orders_id_seq'),
                  'identifier', gen_random_uuid(),
                  'order_number', null,
                  'invoice_number', null)
           FROM orders o LIMIT 1))`,
    );
    await expect(db.query('COMMIT')).rejects.toMatchObject({ code: '23502' });
    expect(await count('orders')).toBe(before);
  });

  it('lists and filters orders and order items through the official SDK', async () => {
    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      const all = await listOrders({
        filter: { storeId },
        page: { size: 100 },
      });
      expect(all.error).toBeNull();
      const numbers = all.data!.data.map((o) => o.attributes.order_number);
      expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
      const byEmail = await listOrders({
        filter: { userEmail: 'ada@example.com' },
      });
      expect(byEmail.data!.data).toHaveLength(1);
      const order = byEmail.data!.data[0];
      const byNumber = await get(
        `/v1/orders?filter[store_id]=${storeId}&filter[order_number]=1`,
      ).expect(200);
      expect(byNumber.body.data.map((o: OrderResource) => o.id)).toEqual([
        order.id,
      ]);
      const one = await getOrder(order.id, { include: ['order-items'] });
      expect(one.error).toBeNull();
      expect(one.data!.included?.[0].type).toBe('order-items');
      const items = await listOrderItems({ filter: { orderId: order.id } });
      expect(items.error).toBeNull();
      expect(items.data!.data).toHaveLength(1);
      const item = await getOrderItem(items.data!.data[0].id);
      expect(Object.keys(item.data!.data.attributes)).toHaveLength(11);
      expect(item.data!.data.attributes.quantity).toBe(2);
      const byVariant = await listOrderItems({
        filter: { variantId: Number(variantId) },
        page: { size: 100 },
      });
      expect(byVariant.data!.data.length).toBeGreaterThanOrEqual(3);

      const bought = await buy(t.baseUrl, buyUrl).expect(201);
      const refunded = await issueOrderRefund(bought.body.data.id, 500);
      expect(refunded.error).toBeNull();
      expect(refunded.data!.data.attributes.refunded_amount).toBe(500);
    } finally {
      restore();
    }
  });

  it('reads orders by hand-written SQL exactly as the ORM loads them', async () => {
    // Every column kind: numeric (transformed), jsonb, nullable, timestamps.
    await db.query(
      `UPDATE orders SET custom_data = '{"ref": "abc", "n": 1}'
        WHERE id = (SELECT min(id) FROM orders)`,
    );
    const orders = t.app.get(DataSource).getRepository(Order);
    const rows = new EntityRows(orders, 'o');
    const raw = await rows.query(
      `SELECT ${rows.select} FROM orders o ORDER BY o.id`,
      [],
    );
    const loaded = await orders.find({ order: { id: 'ASC' } });
    expect(raw.length).toBeGreaterThan(3);
    expect(raw).toEqual(loaded);
    expect(raw[0]).toBeInstanceOf(Order);
    expect(raw[0].customData).toEqual({ ref: 'abc', n: 1 });
    expect(raw.map((order) => typeof order.taxRate)).not.toContain('string');
  });

  it('inserts orders by hand-written SQL as the ORM would store and load them', async () => {
    const dataSource = t.app.get(DataSource);
    const orders = dataSource.getRepository(Order);
    const rows = new EntityRows(orders, 'o');
    const [template] = await orders.find({ order: { id: 'ASC' }, take: 1 });
    const { id: _id, orderNumber: _number, ...fields } = template;
    const now = new Date('2026-01-02T03:04:05.678Z');
    const values = {
      ...fields,
      identifier: randomUUID(),
      invoiceNumber: null,
      taxName: null,
      taxRate: 7.25,
      customData: { ref: 'insert', list: [1, 'two'] },
      createdAt: now,
      updatedAt: now,
    };
    // Numbered as a purchase numbers it (a deferred trigger requires one at commit).
    const inserted = await dataSource.transaction(async (manager) => {
      const [order] = await rows.insert(manager, [values]);
      await manager.query(`UPDATE orders SET order_number = -1 WHERE id = $1`, [
        order.id,
      ]);
      return order;
    });
    expect(inserted).toBeInstanceOf(Order);
    expect(inserted).toEqual({ ...values, id: inserted.id, orderNumber: null });
    const loaded = await orders.findOneByOrFail({ id: inserted.id });
    expect(loaded).toEqual({ ...values, id: inserted.id, orderNumber: -1 });
    await db.query(`DELETE FROM orders WHERE id = $1`, [inserted.id]);
  });

  it('migrates stored partial refunds to paid, and back', async () => {
    const { orderId } = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2000 },
    );
    await refund(orderId, { amount: 500 }).expect(200);
    // Another sale's invoice: one payment is refunded through one record.
    const { subscription } = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2000 },
    );
    const invoiceId = (
      await get(
        `/v1/subscription-invoices?filter[subscription_id]=${subscription.id}`,
      ).expect(200)
    ).body.data[0].id as string;
    await request(t.baseUrl)
      .post(`/v1/subscription-invoices/${invoiceId}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'subscription-invoices',
            id: invoiceId,
            attributes: { amount: 700 },
          },
        }),
      )
      .expect(200);
    const rows = async () => [
      (
        await db.query(
          `SELECT status, refunded_at, refunded_amount FROM orders WHERE id = $1`,
          [orderId],
        )
      ).rows[0],
      (
        await db.query(
          `SELECT status, refunded_at, refunded_amount FROM subscription_invoices WHERE id = $1`,
          [invoiceId],
        )
      ).rows[0],
    ];
    const migration = new RefundStatus1764100000000();
    const runner = t.app.get(DataSource).createQueryRunner();
    try {
      await migration.down(runner);
      expect(await rows()).toEqual([
        { status: 'partial_refund', refunded_at: null, refunded_amount: 500 },
        { status: 'partial_refund', refunded_at: null, refunded_amount: 700 },
      ]);
      // The old code set an invoice's refunded_at on any refund.
      await db.query(
        `UPDATE subscription_invoices SET refunded_at = now() WHERE id = $1`,
        [invoiceId],
      );
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(await rows()).toEqual([
      { status: 'paid', refunded_at: null, refunded_amount: 500 },
      { status: 'paid', refunded_at: null, refunded_amount: 700 },
    ]);
    await expect(
      db.query(`UPDATE orders SET status = 'partial_refund' WHERE id = $1`, [
        orderId,
      ]),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      db.query(
        `UPDATE subscription_invoices SET refunded_at = now() WHERE id = $1`,
        [invoiceId],
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });
});
