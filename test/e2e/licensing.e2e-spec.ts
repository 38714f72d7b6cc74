import request from 'supertest';
import {
  getLicenseKey,
  getLicenseKeyInstance,
  listLicenseKeyInstances,
  listLicenseKeys,
  updateLicenseKey,
} from '@lemonsqueezy/lemonsqueezy.js';
import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions';
import { CustomerActivity } from '../../src/modules/customer/customer-activity';
import {
  LicenseKeyService,
  LicenseKeyView,
} from '../../src/modules/licensing/license-key.service';
import { createMerchant, Merchant } from '../support/factories';
import { issueLicenseKeys, LivePaymentsTestModule } from '../support/licensing';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

type Resource = {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
  links: { self: string };
};

describe('license keys and instances (JSON:API)', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let restoreFetch: (() => void) | undefined;
  let keys: LicenseKeyView[];

  beforeAll(async () => {
    t = await startTestApp({}, { modules: [LivePaymentsTestModule] });
    merchant = await createMerchant(t.app, ['Keys One', 'Keys Two']);
    other = await createMerchant(t.app, ['Elsewhere']);
    keys = [
      ...(await issueLicenseKeys(t, merchant, merchant.stores[0], {
        quantity: 3,
      })),
      ...(await issueLicenseKeys(t, merchant, merchant.stores[1], {
        activationLimit: null,
        length: { value: 1, unit: 'months' },
        customData: { user_id: 'u-1' },
      })),
    ];
    restoreFetch = useSdkAgainst(t.baseUrl, merchant.testKey);
  });
  // Safe after a failed beforeAll too, so Jest is never left hanging.
  afterAll(async () => {
    restoreFetch?.();
    await t?.close();
  });

  const get = (path: string, key = merchant.testKey) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');
  const patch = (id: number | string, body: unknown, key = merchant.testKey) =>
    request(t.baseUrl)
      .patch(`/v1/license-keys/${id}`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify(body));
  const patchAttributes = (id: number, attributes: Record<string, unknown>) =>
    patch(id, { data: { type: 'license-keys', id: String(id), attributes } });
  const activate = (key: string, name: string) =>
    request(t.baseUrl)
      .post('/v1/licenses/activate')
      .type('form')
      .send({ license_key: key, instance_name: name })
      .expect(200);
  const events = (name: string) =>
    t.app
      .get(DataSource)
      .query<{ data: Resource; custom_data: unknown; store_id: number }[]>(
        `SELECT data, custom_data, store_id FROM webhook_events WHERE name = $1 ORDER BY id`,
        [name],
      );

  it('lists keys ordered by id with the 18 attributes, through the SDK', async () => {
    const { statusCode, data } = await listLicenseKeys();
    expect(statusCode).toBe(200);
    const list = data as unknown as {
      data: Resource[];
      meta: { page: Record<string, number> };
      links: Record<string, string>;
    };
    expect(list.data.map((k) => Number(k.id))).toEqual(keys.map((k) => k.id));
    const first = list.data[0];
    expect(first.type).toBe('license-keys');
    expect(Object.keys(first.attributes)).toEqual([
      'store_id',
      'customer_id',
      'order_id',
      'order_item_id',
      'product_id',
      'user_name',
      'user_email',
      'key',
      'key_short',
      'activation_limit',
      'instances_count',
      'disabled',
      'status',
      'status_formatted',
      'expires_at',
      'created_at',
      'updated_at',
      'test_mode',
    ]);
    const key = keys[0];
    expect(first.attributes).toMatchObject({
      store_id: merchant.stores[0].id,
      customer_id: key.customerId,
      order_id: key.orderId,
      order_item_id: key.orderItemId,
      product_id: key.productId,
      user_name: 'Ada Buyer',
      user_email: key.userEmail,
      key: key.key,
      key_short: `XXXX-${key.key.slice(-12)}`,
      activation_limit: 5,
      instances_count: 0,
      disabled: false,
      status: 'inactive',
      status_formatted: 'Inactive',
      expires_at: null,
      test_mode: true,
    });
    expect(first.attributes.key).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(first.attributes.created_at).toMatch(TIMESTAMP);
    expect(Object.keys(first.relationships)).toEqual([
      'store',
      'customer',
      'order',
      'order-item',
      'product',
      'license-key-instances',
    ]);
    expect(first.links.self).toBe(`${t.baseUrl}/v1/license-keys/${first.id}`);
    expect(list.meta.page).toEqual({
      currentPage: 1,
      from: 1,
      lastPage: 1,
      perPage: 10,
      to: 4,
      total: 4,
    });
    expect(list.links.first).toContain('sort=id');
    // The unlimited, time-limited key.
    expect(list.data[3].attributes.activation_limit).toBeNull();
    expect(list.data[3].attributes.expires_at).toMatch(TIMESTAMP);
    const expires = new Date(String(list.data[3].attributes.expires_at));
    const created = new Date(String(list.data[3].attributes.created_at));
    const days = (expires.getTime() - created.getTime()) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(28);
    expect(days).toBeLessThanOrEqual(31);
  });

  it('issues one distinct key per purchased unit and records license_key_created', async () => {
    const unitKeys = keys.slice(0, 3);
    expect(new Set(unitKeys.map((k) => k.key)).size).toBe(3);
    expect(new Set(unitKeys.map((k) => k.orderItemId)).size).toBe(1);
    const created = await events('license_key_created');
    expect(created.map((e) => e.data.id)).toEqual(
      keys.map((k) => String(k.id)),
    );
    expect(created[0].data.type).toBe('license-keys');
    expect(Object.keys(created[0].data.attributes)).toHaveLength(18);
    expect(created[3].custom_data).toEqual({ user_id: 'u-1' });
  });

  it('filters by store, order, order item, product and status; pages with the filters', async () => {
    const byStore = await listLicenseKeys({
      filter: { storeId: merchant.stores[1].id },
    });
    expect(
      (byStore.data as unknown as { data: Resource[] }).data.map((k) =>
        Number(k.id),
      ),
    ).toEqual([keys[3].id]);
    for (const [filter, value] of [
      ['order_id', keys[0].orderId],
      ['order_item_id', keys[0].orderItemId],
      ['product_id', keys[0].productId],
    ] as const) {
      const response = await get(
        `/v1/license-keys?filter[${filter}]=${value}&page[size]=2`,
      ).expect(200);
      expect(response.body.meta.page.total).toBe(3);
      expect(response.body.links.next).toContain(
        `filter%5B${filter}%5D=${value}`,
      );
    }
    // A status no key has matches nothing (issue 22); an unknown filter is a 400.
    const bogus = await get('/v1/license-keys?filter[status]=bogus').expect(
      200,
    );
    expect(bogus.body.meta.page.total).toBe(0);
    await get('/v1/license-keys?filter[variant_id]=1').expect(400);
  });

  it('derives the status the same way in attributes and in filter[status]', async () => {
    const [inactive, active, expired, disabled] = await issueLicenseKeys(
      t,
      merchant,
      merchant.stores[0],
      { quantity: 4 },
    );
    await activate(active.key, 'One');
    await patchAttributes(expired.id, {
      expires_at: '2021-06-01T12:00:00.000000Z',
    }).expect(200);
    // Disabled wins over expired and over instances.
    await activate(disabled.key, 'Two');
    await patchAttributes(disabled.id, {
      disabled: true,
      expires_at: '2021-06-01T12:00:00.000000Z',
    }).expect(200);
    const expected: Record<string, number> = {
      inactive: inactive.id,
      active: active.id,
      expired: expired.id,
      disabled: disabled.id,
    };
    const ours = new Set(Object.values(expected).map(String));
    for (const [status, id] of Object.entries(expected)) {
      const response = await get(
        `/v1/license-keys?filter[status]=${status}&filter[order_id]=${inactive.orderId}`,
      ).expect(200);
      expect(response.body.data.map((k: Resource) => Number(k.id))).toEqual([
        id,
      ]);
      expect(response.body.data[0].attributes.status).toBe(status);
      const all = await get(
        `/v1/license-keys?filter[status]=${status}&page[size]=100`,
      ).expect(200);
      for (const key of all.body.data as Resource[]) {
        expect(key.attributes.status).toBe(status);
      }
      expect(
        (all.body.data as Resource[]).filter((k) => ours.has(k.id)),
      ).toHaveLength(1);
    }
    const one = await getLicenseKey(active.id);
    expect(one.data?.data.attributes.status).toBe('active');
    expect(one.data?.data.attributes.instances_count).toBe(1);
  });

  it('updates activation_limit, expires_at and disabled through the SDK and records license_key_updated', async () => {
    const key = keys[1];
    const before = (await events('license_key_updated')).length;
    const updated = await updateLicenseKey(key.id, {
      activationLimit: 10,
      expiresAt: '2031-01-01T00:00:00.000000Z',
      disabled: true,
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.data?.data.attributes).toMatchObject({
      activation_limit: 10,
      expires_at: '2031-01-01T00:00:00.000000Z',
      disabled: true,
      status: 'disabled',
      status_formatted: 'Disabled',
    });
    // The SDK always sends disabled (false by default): any SDK update re-enables.
    const enabled = await updateLicenseKey(key.id, { activationLimit: 2 });
    expect(enabled.data?.data.attributes).toMatchObject({
      activation_limit: 2,
      disabled: false,
      status: 'inactive',
      expires_at: '2031-01-01T00:00:00.000000Z',
    });
    const cleared = await patchAttributes(key.id, {
      activation_limit: null,
      expires_at: null,
    }).expect(200);
    expect(cleared.body.data.attributes).toMatchObject({
      activation_limit: null,
      expires_at: null,
    });
    const after = await events('license_key_updated');
    expect(after).toHaveLength(before + 3);
    expect(after[after.length - 1].data.attributes).toMatchObject({
      activation_limit: null,
    });
  });

  it('refuses invalid PATCH bodies with JSON:API errors and writes nothing', async () => {
    const key = keys[2];
    const before = (await events('license_key_updated')).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ activation_limit: 'many' }, 'activation_limit'],
      [{ activation_limit: -1 }, 'activation_limit'],
      [{ activation_limit: 1.5 }, 'activation_limit'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ expires_at: 12 }, 'expires_at'],
      [{ disabled: 'yes' }, 'disabled'],
      [{ disabled: null }, 'disabled'],
    ];
    for (const [attributes, field] of cases) {
      const response = await patchAttributes(key.id, attributes).expect(422);
      expect(response.body.errors[0].source.pointer).toBe(
        `/data/attributes/${field}`,
      );
      expect(response.body.jsonapi).toEqual({ version: '1.0' });
    }
    await patch(key.id, {
      data: { type: 'license-keys', id: '999', attributes: {} },
    }).expect(409);
    await patch(key.id, {
      data: { type: 'orders', id: String(key.id), attributes: {} },
    }).expect(400);
    expect(await events('license_key_updated')).toHaveLength(before);
    const unchanged = await get(`/v1/license-keys/${key.id}`).expect(200);
    expect(unchanged.body.data.attributes.activation_limit).toBe(5);
  });

  it('lists and reads instances, whose identifier is the License API instance id', async () => {
    const key = keys[0];
    const first = await activate(key.key, 'Workstation');
    await activate(key.key, 'Laptop');
    const list = await listLicenseKeyInstances({
      filter: { licenseKeyId: key.id },
    });
    expect(list.statusCode).toBe(200);
    const instances = (list.data as unknown as { data: Resource[] }).data;
    expect(instances.map((i) => i.attributes.name)).toEqual([
      'Workstation',
      'Laptop',
    ]);
    expect(Object.keys(instances[0].attributes)).toEqual([
      'license_key_id',
      'identifier',
      'name',
      'created_at',
      'updated_at',
    ]);
    expect(instances[0].attributes.license_key_id).toBe(key.id);
    expect(instances[0].attributes.identifier).toBe(first.body.instance.id);
    expect(Object.keys(instances[0].relationships)).toEqual(['license-key']);

    const one = await getLicenseKeyInstance(instances[0].id, {
      include: ['license-key'],
    });
    expect(one.statusCode).toBe(200);
    expect(one.data?.data.attributes.name).toBe('Workstation');
    expect(
      (one.data as unknown as { included: Resource[] }).included[0],
    ).toMatchObject({ type: 'license-keys', id: String(key.id) });

    const withInstances = await get(
      `/v1/license-keys/${key.id}?include=license-key-instances`,
    ).expect(200);
    expect(withInstances.body.included).toHaveLength(2);
    expect(
      withInstances.body.data.relationships['license-key-instances'].data,
    ).toHaveLength(2);
    const related = await get(
      `/v1/license-keys/${key.id}/license-key-instances`,
    ).expect(200);
    expect(related.body.meta.page.total).toBe(2);
    await get('/v1/license-key-instances?filter[license_key_id]=x').expect(400);
  });

  it('hides keys and instances of other users and of the other mode (404, empty lists)', async () => {
    const key = keys[0];
    const [instance] = (
      await get(`/v1/license-key-instances?filter[license_key_id]=${key.id}`)
    ).body.data as Resource[];
    for (const apiKey of [other.testKey, merchant.liveKey]) {
      await get(`/v1/license-keys/${key.id}`, apiKey).expect(404);
      await get(`/v1/license-key-instances/${instance.id}`, apiKey).expect(404);
      await patchAttributes(key.id, { disabled: true })
        .set('Authorization', `Bearer ${apiKey}`)
        .expect(404);
      const list = await get('/v1/license-keys', apiKey).expect(200);
      expect(list.body.data).toEqual([]);
      const instances = await get(
        `/v1/license-key-instances?filter[license_key_id]=${key.id}`,
        apiKey,
      ).expect(200);
      expect(instances.body.data).toEqual([]);
    }
    await get('/v1/license-keys/abc').expect(404);
    await get('/v1/license-keys/99999').expect(404);
    await get('/v1/license-key-instances/0').expect(404);
    const unchanged = await get(`/v1/license-keys/${key.id}`).expect(200);
    expect(unchanged.body.data.attributes.disabled).toBe(false);

    const live = await issueLicenseKeys(t, merchant, merchant.stores[0], {
      testMode: false,
    });
    const liveList = await get('/v1/license-keys', merchant.liveKey).expect(
      200,
    );
    expect(liveList.body.data.map((k: Resource) => Number(k.id))).toEqual([
      live[0].id,
    ]);
    await get(`/v1/license-keys/${live[0].id}`).expect(404);
  });

  it('lists the customer’s keys on their portal page', async () => {
    const [key] = keys;
    const lists = await t.app
      .get(CustomerActivity)
      .portal(
        { id: key.customerId, storeId: key.storeId, testMode: true },
        new Date(),
      );
    expect(lists.licenseKeys.map((k) => k.key)).toEqual(
      keys.slice(0, 3).map((k) => k.key),
    );
    expect(lists.licenseKeys[0]).toMatchObject({
      productName: 'Desktop App',
      activationLimit: 5,
      expiresAt: null,
    });
    const elsewhere = await t.app
      .get(CustomerActivity)
      .portal(
        { id: key.customerId, storeId: key.storeId, testMode: false },
        new Date(),
      );
    expect(elsewhere.licenseKeys).toEqual([]);
  });

  it('lets a subscription move the expiry of its keys (followSubscription)', async () => {
    const [key] = await issueLicenseKeys(t, merchant, merchant.stores[0], {
      subscription: true,
      length: { value: 1, unit: 'days' },
    });
    expect(key.expiresAt).toBeNull();
    const before = (await events('license_key_updated')).length;
    const endsAt = new Date('2032-03-04T05:06:07.000Z');
    const service = t.app.get(LicenseKeyService);
    const changed = await t.app
      .get(Transactions)
      .run((manager) =>
        service.followSubscription(manager, key.orderItemId, endsAt),
      );
    expect(changed.map((k) => k.id)).toEqual([key.id]);
    const read = await get(`/v1/license-keys/${key.id}`).expect(200);
    expect(read.body.data.attributes.expires_at).toBe(
      '2032-03-04T05:06:07.000000Z',
    );
    // The same end again changes nothing and fires nothing.
    await t.app
      .get(Transactions)
      .run((manager) =>
        service.followSubscription(manager, key.orderItemId, endsAt),
      );
    expect(await events('license_key_updated')).toHaveLength(before + 1);
  });
});
