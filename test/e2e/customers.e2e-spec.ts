import request from 'supertest';
import {
  archiveCustomer,
  createCustomer as sdkCreateCustomer,
  getCustomer,
  listCustomers,
  updateCustomer,
} from '@lemonsqueezy/lemonsqueezy.js';
import { createCustomer, createMerchant, Merchant } from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ATTRIBUTES = [
  'store_id',
  'name',
  'email',
  'status',
  'city',
  'region',
  'country',
  'total_revenue_currency',
  'mrr',
  'status_formatted',
  'country_formatted',
  'total_revenue_currency_formatted',
  'mrr_formatted',
  'urls',
  'created_at',
  'updated_at',
  'test_mode',
  // Extensions: the billing address beyond city and country, the tax number.
  'address',
  'zip',
  'tax_number',
];

interface CustomerObject {
  id: string;
  attributes: Record<string, unknown> & { email: string; name: string };
}

describe('customers', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Main Store', 'Second Store']);
    other = await createMerchant(t.app, ['Other Store']);
  });
  afterAll(() => t.close());

  const auth = (r: request.Test, key: string) =>
    r
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');
  const get = (path: string, key = merchant.testKey) =>
    auth(request(t.baseUrl).get(path), key);
  const post = (body: unknown, key = merchant.testKey) =>
    auth(request(t.baseUrl).post('/v1/customers'), key)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify(body));
  const patch = (id: string | number, body: unknown, key = merchant.testKey) =>
    auth(request(t.baseUrl).patch(`/v1/customers/${id}`), key)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify(body));

  const newCustomer = (
    attributes: Record<string, unknown>,
    storeId: number | string = merchant.stores[0].id,
  ) => ({
    data: {
      type: 'customers',
      attributes,
      relationships: {
        store: { data: { type: 'stores', id: String(storeId) } },
      },
    },
  });
  const changes = (
    id: string | number,
    attributes: Record<string, unknown>,
  ) => ({
    data: { type: 'customers', id: String(id), attributes },
  });

  /** Every customer the key sees (all pages). */
  async function allCustomers(
    key = merchant.testKey,
  ): Promise<CustomerObject[]> {
    const response = await get('/v1/customers?page[size]=100', key).expect(200);
    return response.body.data;
  }

  it('creates a subscribed customer with the exact attribute set (201)', async () => {
    const response = await post(
      newCustomer({
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        city: 'London',
        region: 'England',
        country: 'GB',
      }),
    ).expect(201);
    expect(response.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    const data = response.body.data;
    expect(data.type).toBe('customers');
    expect(Object.keys(data.attributes)).toEqual(ATTRIBUTES);
    expect(data.attributes).toMatchObject({
      store_id: merchant.stores[0].id,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      status: 'subscribed',
      status_formatted: 'Subscribed',
      city: 'London',
      region: 'England',
      country: 'GB',
      country_formatted: 'United Kingdom',
      total_revenue_currency: 0,
      mrr: 0,
      total_revenue_currency_formatted: '$0.00',
      mrr_formatted: '$0.00',
      urls: { customer_portal: null },
      test_mode: true,
    });
    expect(data.attributes.created_at).toMatch(TIMESTAMP);
    expect(data.attributes.updated_at).toMatch(TIMESTAMP);
    const self = `${t.baseUrl}/v1/customers/${data.id}`;
    expect(data.links.self).toBe(self);
    expect(response.body.links.self).toBe(self);
    expect(Object.keys(data.relationships)).toEqual([
      'store',
      'orders',
      'subscriptions',
      'license-keys',
    ]);
    expect(data.relationships.orders.links).toEqual({
      related: `${self}/orders`,
      self: `${self}/relationships/orders`,
    });

    const read = await get(`/v1/customers/${data.id}?include=store`).expect(
      200,
    );
    expect(read.body.data.attributes.email).toBe('ada@example.com');
    expect(read.body.data.relationships.store.data).toEqual({
      type: 'stores',
      id: String(merchant.stores[0].id),
    });
    expect(read.body.included.map((r: { type: string }) => r.type)).toEqual([
      'stores',
    ]);
    const store = await get(`/v1/customers/${data.id}/store`).expect(200);
    expect(store.body.data.id).toBe(String(merchant.stores[0].id));
    // Relationships to types other modules serve: links render, following them never fails.
    for (const name of ['orders', 'subscriptions', 'license-keys']) {
      const related = await get(`/v1/customers/${data.id}/${name}`);
      expect([200, 404]).toContain(related.status);
    }
  });

  it('creates with only name and email, leaving the rest null', async () => {
    const response = await post(
      newCustomer({ name: 'Bare', email: 'bare@example.com' }),
    ).expect(201);
    expect(response.body.data.attributes).toMatchObject({
      city: null,
      region: null,
      country: null,
      country_formatted: null,
    });
  });

  it('refuses bad input with a 4xx pointing at the field and writes nothing', async () => {
    const before = await allCustomers();
    const cases: [unknown, number, string][] = [
      [
        newCustomer({ name: 'X', email: 'x@example.com' }, 999999),
        404,
        '/data/relationships/store',
      ],
      [
        newCustomer({ name: 'X', email: 'x@example.com' }, other.stores[0].id),
        404,
        '/data/relationships/store',
      ],
      [
        newCustomer({ name: 'X', email: 'x@example.com' }, 'abc'),
        404,
        '/data/relationships/store',
      ],
      [
        newCustomer({ name: 'X', email: 'not-an-email' }),
        422,
        '/data/attributes/email',
      ],
      [newCustomer({ name: 'X', email: 42 }), 422, '/data/attributes/email'],
      [newCustomer({ email: 'x@example.com' }), 422, '/data/attributes/name'],
      [
        newCustomer({ name: '   ', email: 'x@example.com' }),
        422,
        '/data/attributes/name',
      ],
      [
        newCustomer({ name: 'X', email: 'x@example.com', country: 'gb' }),
        422,
        '/data/attributes/country',
      ],
      [
        newCustomer({ name: 'X', email: 'x@example.com', country: 'XX' }),
        422,
        '/data/attributes/country',
      ],
      [
        // Intl calls it "Unknown Region"; ISO 3166-1 does not assign it.
        newCustomer({ name: 'X', email: 'x@example.com', country: 'ZZ' }),
        422,
        '/data/attributes/country',
      ],
      [
        newCustomer({ name: 'X', email: 'x@example.com', city: 7 }),
        422,
        '/data/attributes/city',
      ],
      [
        newCustomer({ name: 'X', email: 'ADA@example.com' }),
        422,
        '/data/attributes/email',
      ],
      [
        {
          data: {
            type: 'customers',
            attributes: { name: 'X', email: 'x@example.com' },
          },
        },
        422,
        '/data/relationships/store',
      ],
      [{ data: { type: 'products', attributes: {} } }, 400, '/data/type'],
    ];
    for (const [body, status, pointer] of cases) {
      const response = await post(body);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(response.body.errors[0].source.pointer).toBe(pointer);
      expect(response.body.errors[0].status).toBe(String(status));
      expect(typeof response.body.errors[0].detail).toBe('string');
    }
    const duplicate = await post(
      newCustomer({ name: 'Again', email: ' ada@EXAMPLE.com ' }),
    );
    expect(duplicate.status).toBe(422);
    expect(await allCustomers()).toEqual(before);
  });

  it('allows one address once per store and mode', async () => {
    const email = 'shared@example.com';
    await post(newCustomer({ name: 'S1', email })).expect(201);
    await post(
      newCustomer({ name: 'S2', email }, merchant.stores[1].id),
    ).expect(201);
    const live = await post(
      newCustomer({ name: 'S3', email }),
      merchant.liveKey,
    ).expect(201);
    expect(live.body.data.attributes.test_mode).toBe(false);
    const again = await post(
      newCustomer({ name: 'S4', email: 'SHARED@example.com' }),
    );
    expect(again.status).toBe(422);
    expect(again.body.errors[0].source.pointer).toBe('/data/attributes/email');
  });

  it('updates fields, archives, and refuses any other status without writing', async () => {
    const customer = await createCustomer(t.app, merchant, merchant.stores[0], {
      name: 'Grace',
      email: 'grace@example.com',
      city: 'Arlington',
      country: 'US',
    });
    const updated = await patch(
      customer.id,
      changes(customer.id, {
        name: 'Grace Hopper',
        city: null,
        region: 'VA',
        country: 'CA',
      }),
    ).expect(200);
    expect(updated.body.data.attributes).toMatchObject({
      name: 'Grace Hopper',
      city: null,
      region: 'VA',
      country: 'CA',
      country_formatted: 'Canada',
      email: 'grace@example.com',
      status: 'subscribed',
    });
    expect(Object.keys(updated.body.data.attributes)).toEqual(ATTRIBUTES);

    for (const status of [
      'subscribed',
      'unsubscribed',
      'bounced',
      'ARCHIVED',
      null,
      1,
    ]) {
      const refused = await patch(
        customer.id,
        changes(customer.id, { name: 'Should Not Stick', status }),
      );
      expect({ status, code: refused.status }).toEqual({ status, code: 422 });
      expect(refused.body.errors[0].source.pointer).toBe(
        '/data/attributes/status',
      );
    }
    const badCountry = await patch(
      customer.id,
      changes(customer.id, { name: 'No', country: 'ca' }),
    );
    expect(badCountry.status).toBe(422);
    const taken = await patch(
      customer.id,
      changes(customer.id, { email: 'ADA@example.com' }),
    );
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].source.pointer).toBe('/data/attributes/email');
    const nullName = await patch(
      customer.id,
      changes(customer.id, { name: null }),
    );
    expect(nullName.status).toBe(422);
    // Attributes the route does not take are ignored (issue 22).
    const unknown = await patch(
      customer.id,
      changes(customer.id, { plan: 'gold' }),
    );
    expect(unknown.status).toBe(200);
    expect(unknown.body.data.attributes).not.toHaveProperty('plan');
    const mismatch = await patch(
      customer.id,
      changes(customer.id + 1, { name: 'X' }),
    );
    expect(mismatch.status).toBe(409);

    const unchanged = await get(`/v1/customers/${customer.id}`).expect(200);
    expect(unchanged.body.data.attributes).toMatchObject({
      name: 'Grace Hopper',
      email: 'grace@example.com',
      country: 'CA',
    });

    const archived = await patch(
      customer.id,
      changes(customer.id, { status: 'archived' }),
    ).expect(200);
    expect(archived.body.data.attributes.status).toBe('archived');
    expect(archived.body.data.attributes.status_formatted).toBe('Archived');
    expect(archived.body.data.attributes.urls.customer_portal).toBeNull();
    // Archiving again is harmless.
    await patch(
      customer.id,
      changes(customer.id, { status: 'archived' }),
    ).expect(200);
  });

  it('scopes reads and writes to the key’s user and mode', async () => {
    const testCustomer = await createCustomer(t.app, merchant);
    const liveCustomer = await createCustomer(
      t.app,
      merchant,
      merchant.stores[0],
      {
        testMode: false,
      },
    );
    const foreign = await createCustomer(t.app, other);
    await get(`/v1/customers/${testCustomer.id}`, merchant.liveKey).expect(404);
    await get(`/v1/customers/${liveCustomer.id}`).expect(404);
    await get(`/v1/customers/${liveCustomer.id}`, merchant.liveKey).expect(200);
    await get(`/v1/customers/${foreign.id}`).expect(404);
    await get(`/v1/customers/${foreign.id}/store`).expect(404);
    await get('/v1/customers/abc').expect(404);
    await patch(foreign.id, changes(foreign.id, { status: 'archived' })).expect(
      404,
    );
    await patch(
      testCustomer.id,
      changes(testCustomer.id, { name: 'X' }),
      merchant.liveKey,
    ).expect(404);
    const foreignAfter = await get(
      `/v1/customers/${foreign.id}`,
      other.testKey,
    ).expect(200);
    expect(foreignAfter.body.data.attributes.status).toBe('subscribed');

    const ids = (await allCustomers()).map((c) => c.id);
    expect(ids).toContain(String(testCustomer.id));
    expect(ids).not.toContain(String(liveCustomer.id));
    expect(ids).not.toContain(String(foreign.id));
    const liveIds = (await allCustomers(merchant.liveKey)).map((c) => c.id);
    expect(liveIds).toContain(String(liveCustomer.id));
    expect(liveIds).not.toContain(String(testCustomer.id));
  });

  it('lists newest first with store and exact email filters and paging links', async () => {
    const fresh = await createMerchant(t.app, ['List A', 'List B']);
    const [a, b] = fresh.stores;
    const made = [];
    for (const [store, email] of [
      [a, 'one@example.com'],
      [b, 'two@example.com'],
      [a, 'three@example.com'],
    ] as const) {
      made.push(await createCustomer(t.app, fresh, store, { email }));
    }
    const list = await get('/v1/customers?include=', fresh.testKey).expect(200);
    expect(
      list.body.data.map((c: CustomerObject) => c.attributes.email),
    ).toEqual(['three@example.com', 'two@example.com', 'one@example.com']);
    expect(list.body.meta.page).toEqual({
      currentPage: 1,
      from: 1,
      lastPage: 1,
      perPage: 10,
      to: 3,
      total: 3,
    });

    const byStore = await get(
      `/v1/customers?filter[store_id]=${a.id}&page[size]=1`,
      fresh.testKey,
    ).expect(200);
    expect(byStore.body.data.map((c: CustomerObject) => c.id)).toEqual([
      String(made[2].id),
    ]);
    expect(byStore.body.meta.page.total).toBe(2);
    expect(byStore.body.links).toEqual({
      first: `${t.baseUrl}/v1/customers?page%5Bnumber%5D=1&page%5Bsize%5D=1&filter%5Bstore_id%5D=${a.id}&sort=-createdAt`,
      last: `${t.baseUrl}/v1/customers?page%5Bnumber%5D=2&page%5Bsize%5D=1&filter%5Bstore_id%5D=${a.id}&sort=-createdAt`,
      next: `${t.baseUrl}/v1/customers?page%5Bnumber%5D=2&page%5Bsize%5D=1&filter%5Bstore_id%5D=${a.id}&sort=-createdAt`,
    });
    const page2 = await get(
      byStore.body.links.next.replace(t.baseUrl, ''),
      fresh.testKey,
    ).expect(200);
    expect(page2.body.data.map((c: CustomerObject) => c.id)).toEqual([
      String(made[0].id),
    ]);

    const byEmail = await get(
      '/v1/customers?filter[email]=two@example.com',
      fresh.testKey,
    ).expect(200);
    expect(byEmail.body.data.map((c: CustomerObject) => c.id)).toEqual([
      String(made[1].id),
    ]);
    const partial = await get(
      '/v1/customers?filter[email]=two@example',
      fresh.testKey,
    ).expect(200);
    expect(partial.body.data).toEqual([]);
    const foreignStore = await get(
      `/v1/customers?filter[store_id]=${merchant.stores[0].id}`,
      fresh.testKey,
    ).expect(200);
    expect(foreignStore.body.data).toEqual([]);

    const ascending = await get(
      '/v1/customers?sort=createdAt',
      fresh.testKey,
    ).expect(200);
    expect(ascending.body.data[0].id).toBe(String(made[0].id));

    const withStore = await get(
      '/v1/customers?include=store',
      fresh.testKey,
    ).expect(200);
    expect(
      withStore.body.included.map((s: { id: string }) => s.id).sort(),
    ).toEqual([String(a.id), String(b.id)].sort());

    await get('/v1/customers?filter[name]=x', fresh.testKey).expect(400);
    await get('/v1/customers?filter[store_id]=abc', fresh.testKey).expect(400);
    await get('/v1/customers?sort=name', fresh.testKey).expect(400);
  });

  describe('through the official SDK', () => {
    let restore: () => void;
    beforeAll(() => {
      restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    });
    afterAll(() => restore());

    it('createCustomer, updateCustomer, archiveCustomer, getCustomer and listCustomers work unchanged', async () => {
      const created = await sdkCreateCustomer(merchant.stores[1].id, {
        name: 'Sdk Person',
        email: 'sdk@example.com',
        city: 'Berlin',
        country: 'DE',
      });
      expect(created.error).toBeNull();
      expect(created.statusCode).toBe(201);
      const id = created.data!.data.id;
      // The reference's 17 and Zest's address, zip and tax_number.
      expect(Object.keys(created.data!.data.attributes)).toHaveLength(20);
      expect(created.data!.data.attributes.status).toBe('subscribed');

      const updated = await updateCustomer(id, {
        name: 'Sdk Renamed',
        region: 'BE',
      });
      expect(updated.error).toBeNull();
      expect(updated.data!.data.attributes).toMatchObject({
        name: 'Sdk Renamed',
        region: 'BE',
        city: 'Berlin',
      });

      const refused = await updateCustomer(id, {
        status: 'unsubscribed' as 'archived',
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.error?.message).toBe('Unprocessable Entity');

      const archived = await archiveCustomer(id);
      expect(archived.error).toBeNull();
      expect(archived.data!.data.attributes.status).toBe('archived');
      expect(archived.data!.data.attributes.urls.customer_portal).toBeNull();

      const one = await getCustomer(id, { include: ['store'] });
      expect(one.error).toBeNull();
      expect(one.data!.data.attributes.name).toBe('Sdk Renamed');
      expect(one.data!.included?.[0]?.type).toBe('stores');

      const listed = await listCustomers({
        filter: { storeId: merchant.stores[1].id, email: 'sdk@example.com' },
      });
      expect(listed.error).toBeNull();
      expect(listed.data!.data.map((c) => c.id)).toEqual([id]);
      expect(listed.data!.meta.page.total).toBe(1);

      const duplicate = await sdkCreateCustomer(merchant.stores[1].id, {
        name: 'Dup',
        email: 'SDK@example.com',
      });
      expect(duplicate.statusCode).toBe(422);

      const missing = await getCustomer(999999);
      expect(missing.statusCode).toBe(404);
    });
  });
});
