import { Client } from 'pg';
import request from 'supertest';
import { buySubscription } from '../support/billing';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

type Member = {
  id?: string;
  quantity: number;
  action?: 'increment' | 'set';
  item: string;
};

describe('usage records in batches (POST /v1/usage-records with data an array)', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let db: Client;
  let metered: string;
  let alsoMetered: string;
  let seats: string;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    merchant = await createMerchant(t.app);
    other = await createMerchant(t.app);
    const storeId = merchant.stores[0].id;
    const itemOf = async (price: Record<string, unknown>) => {
      const { subscription } = await buySubscription(
        t.baseUrl,
        merchant.testKey,
        storeId,
        price,
      );
      const item = subscription.attributes.first_subscription_item as {
        id: number;
      };
      return String(item.id);
    };
    const usage = { unit_price: 1, usage_aggregation: 'sum' };
    metered = await itemOf(usage);
    alsoMetered = await itemOf(usage);
    seats = await itemOf({ unit_price: 1000 });
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const post = (body: unknown, key = merchant.testKey) =>
    request(t.baseUrl)
      .post('/v1/usage-records')
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(body as object);
  const member = ({ id, quantity, action, item }: Member) => ({
    type: 'usage-records',
    ...(id === undefined ? {} : { id }),
    attributes: { quantity, ...(action ? { action } : {}) },
    relationships: {
      'subscription-item': { data: { type: 'subscription-items', id: item } },
    },
  });
  const batch = (members: Member[]) => ({ data: members.map(member) });
  const current = async (item: string) => {
    const response = await request(t.baseUrl)
      .get(`/v1/subscription-items/${item}/current-usage`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    return response.body.meta.quantity as number;
  };
  const records = async () =>
    Number(
      (await db.query('SELECT count(*) AS n FROM usage_records')).rows[0].n,
    );

  it('adds every record of parallel batches and singles exactly once, each client id once', async () => {
    // 8 batches of 250 (split over two items) and 200 single posts, all at once.
    const batches = Array.from({ length: 8 }, (_, b) =>
      Array.from({ length: 250 }, (_, i) => ({
        id: `run-1:${b}:${i}`,
        quantity: (i % 3) + 1,
        item: i % 2 === 0 ? metered : alsoMetered,
      })),
    );
    const responses = await Promise.all([
      ...batches.map((members) => post(batch(members))),
      ...Array.from({ length: 200 }, () =>
        post({ data: member({ quantity: 2, item: metered }) }),
      ),
    ]);
    for (const response of responses) expect(response.status).toBe(201);
    const expected = (item: string) =>
      batches
        .flat()
        .filter((m) => m.item === item)
        .reduce((sum, m) => sum + m.quantity, 0);
    expect(await current(metered)).toBe(expected(metered) + 400);
    expect(await current(alsoMetered)).toBe(expected(alsoMetered));
    expect(await records()).toBe(8 * 250 + 200);

    // A batch answers with its records in order.
    const first = responses[0].body.data as {
      id: string;
      attributes: Record<string, unknown>;
    }[];
    expect(first).toHaveLength(250);
    expect(first[1].attributes).toMatchObject({
      subscription_item_id: Number(alsoMetered),
      quantity: 2,
      action: 'increment',
    });

    // The same batches again, in parallel: nothing is added, each member
    // answers with the record first posted under its id.
    const again = await Promise.all(
      batches.slice(0, 4).map((members) => post(batch(members))),
    );
    for (const [i, response] of again.entries()) {
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual(responses[i].body.data);
    }
    expect(await current(metered)).toBe(expected(metered) + 400);
    expect(await records()).toBe(8 * 250 + 200);

    // A client id repeated within one batch counts once; another merchant
    // may use the same ids for its own records.
    const before = await current(metered);
    const twice = await post(
      batch([
        { id: 'dup', quantity: 5, item: metered },
        { id: 'dup', quantity: 7, item: metered },
      ]),
    ).expect(201);
    expect(twice.body.data[1]).toEqual(twice.body.data[0]);
    expect(await current(metered)).toBe(before + 5);
  });

  it('folds set and increments in the order of the batch', async () => {
    const response = await post(
      batch([
        { quantity: 10, item: alsoMetered },
        { quantity: 100, action: 'set', item: alsoMetered },
        { quantity: 3, item: alsoMetered },
      ]),
    ).expect(201);
    expect(response.body.data).toHaveLength(3);
    expect(await current(alsoMetered)).toBe(103);
  });

  it('writes nothing when one member is wrong, and points at it', async () => {
    const count = await records();
    const usage = await current(metered);
    const members = Array.from({ length: 10 }, (_, i) => ({
      id: `bad-batch-${i}`,
      quantity: 1,
      item: metered,
    }));

    members[3] = { ...members[3], quantity: 0 };
    const invalid = await post(batch(members)).expect(422);
    expect(invalid.body.errors).toHaveLength(1);
    expect(invalid.body.errors[0].source).toEqual({
      pointer: '/data/3/attributes/quantity',
    });

    members[3] = { ...members[3], quantity: 1 };
    members[6] = { ...members[6], item: seats };
    const notMetered = await post(batch(members)).expect(422);
    expect(notMetered.body.errors[0]).toMatchObject({
      code: 'subscription_item_not_usage_based',
      source: { pointer: '/data/6/relationships/subscription-item' },
    });

    members[6] = { ...members[6], item: '999999' };
    const missing = await post(batch(members)).expect(404);
    expect(missing.body.errors[0].source).toEqual({
      pointer: '/data/6/relationships/subscription-item',
    });

    // Another merchant's batch naming this merchant's item finds nothing.
    await post(batch([{ quantity: 1, item: metered }]), other.testKey).expect(
      404,
    );

    const badId = await post({
      data: [{ ...member({ quantity: 1, item: metered }), id: 'no spaces' }],
    }).expect(400);
    expect(badId.body.errors[0].source).toEqual({ pointer: '/data/0/id' });
    const tooMany = await post(
      batch(
        Array.from({ length: 1001 }, () => ({ quantity: 1, item: metered })),
      ),
    ).expect(400);
    expect(tooMany.body.errors[0].source).toEqual({ pointer: '/data' });
    await post({ data: [] }).expect(400);

    expect(await records()).toBe(count);
    expect(await current(metered)).toBe(usage);
    // The ids of the refused batch were not used up.
    members[6] = { ...members[6], item: metered };
    await post(batch(members)).expect(201);
    expect(await current(metered)).toBe(usage + 10);
  });
});
