import { Client } from 'pg';
import request from 'supertest';
import {
  applyUsage,
  NO_USAGE,
  PeriodUsage,
  UsageAction,
} from '../../src/modules/billing/usage-aggregation';
import { UsageRecordRepository } from '../../src/modules/billing/usage-record.repository';
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
  let othersMetered: string;

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
    const { subscription } = await buySubscription(
      t.baseUrl,
      other.testKey,
      other.stores[0].id,
      usage,
    );
    othersMetered = String(
      (subscription.attributes.first_subscription_item as { id: number }).id,
    );
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
  const currentOf = async (item: string, key: string) => {
    const response = await request(t.baseUrl)
      .get(`/v1/subscription-items/${item}/current-usage`)
      .set('Authorization', `Bearer ${key}`)
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

  it('answers parallel single posts of several callers each with its own outcome', async () => {
    const before = {
      metered: await current(metered),
      others: await currentOf(othersMetered, other.testKey),
    };
    const count = await records();
    const single = (item: string, key = merchant.testKey, quantity = 1) =>
      post({ data: member({ quantity, item }) }, key);
    const sent = [
      ...Array.from({ length: 40 }, (_, i) => ({
        expect: 201,
        response: single(metered, merchant.testKey, (i % 3) + 1),
      })),
      ...Array.from({ length: 20 }, () => ({
        expect: 201,
        response: single(othersMetered, other.testKey, 2),
      })),
      // Each caller sees only its own items, in its own mode.
      ...Array.from({ length: 5 }, () => ({
        expect: 404,
        response: single(metered, other.testKey),
      })),
      ...Array.from({ length: 5 }, () => ({
        expect: 404,
        response: single(metered, merchant.liveKey),
      })),
      ...Array.from({ length: 5 }, () => ({
        expect: 422,
        response: single(seats),
      })),
      ...Array.from({ length: 5 }, () => ({
        expect: 404,
        response: single('999999'),
      })),
    ];
    const responses = await Promise.all(sent.map((s) => s.response));
    responses.forEach((response, i) => {
      expect(response.status).toBe(sent[i].expect);
    });
    const created = responses.filter((r) => r.status === 201);
    // Every record its own, with its own quantity.
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(60);
    responses.slice(0, 40).forEach((response, i) => {
      expect(response.body.data.attributes).toMatchObject({
        subscription_item_id: Number(metered),
        quantity: (i % 3) + 1,
        action: 'increment',
      });
    });
    expect(responses[60].body.errors[0].code).toBe(
      'subscription_item_not_found',
    );
    expect(responses[70].body.errors[0].code).toBe(
      'subscription_item_not_usage_based',
    );
    const added = Array.from({ length: 40 }, (_, i) => (i % 3) + 1).reduce(
      (a, b) => a + b,
      0,
    );
    expect(await current(metered)).toBe(before.metered + added);
    expect(await currentOf(othersMetered, other.testKey)).toBe(
      before.others + 40,
    );
    expect(await records()).toBe(count + 60);
  });

  it("writes several callers' posts in one statement: each in its tenancy, folded in order", async () => {
    const repository = t.app.get(UsageRecordRepository);
    const mine = { userId: merchant.userId, apiKeyId: 0, testMode: true };
    const theirs = { userId: other.userId, apiKeyId: 0, testMode: true };
    const totals = async (item: string): Promise<PeriodUsage> => {
      const { rows } = await db.query(
        `SELECT t.total, t.peak FROM subscription_usage_totals t
           JOIN subscription_items i ON i.id = t.subscription_item_id
           JOIN subscriptions s ON s.id = i.subscription_id
          WHERE t.subscription_item_id = $1 AND t.period_start = s.current_period_start`,
        [item],
      );
      return rows.length === 0
        ? NO_USAGE
        : { total: Number(rows[0].total), peak: Number(rows[0].peak) };
    };
    const start = {
      metered: await totals(metered),
      alsoMetered: await totals(alsoMetered),
      others: await totals(othersMetered),
    };
    const steps: [string, UsageAction, number, typeof mine][] = [
      [metered, 'increment', 5, mine],
      [alsoMetered, 'set', 1000, mine],
      [metered, 'set', 7, mine],
      [othersMetered, 'increment', 4, theirs],
      [metered, 'increment', 2, mine],
      [metered, 'increment', 1, theirs], // not theirs: refused
      [alsoMetered, 'increment', 3, mine],
      [metered, 'set', 3, mine],
      [seats, 'increment', 1, mine], // not usage-based: refused
      [othersMetered, 'set', 2, theirs],
      [metered, 'increment', 1, { ...mine, testMode: false }], // wrong mode
      [metered, 'increment', 4, mine],
    ];
    const outcomes = await repository.post(
      steps.map(([item, action, quantity, principal]) => ({
        principal,
        itemId: Number(item),
        action,
        quantity,
      })),
      new Date(),
    );
    expect(
      outcomes.map(({ target, record }) =>
        target === null ? 'invisible' : record === null ? 'refused' : 'posted',
      ),
    ).toEqual([
      'posted',
      'posted',
      'posted',
      'posted',
      'posted',
      'invisible',
      'posted',
      'posted',
      'refused',
      'posted',
      'invisible',
      'posted',
    ]);
    const ids = outcomes.flatMap(({ record }) => (record ? [record.id] : []));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // The same fold as one post after another (applyUsage is its specification).
    const expected = (item: string, from: PeriodUsage) =>
      steps
        .filter(
          (_, i) => outcomes[i].record?.subscriptionItemId === Number(item),
        )
        .reduce(
          (usage, [, action, quantity]) => applyUsage(usage, action, quantity),
          from,
        );
    expect(await totals(metered)).toEqual(expected(metered, start.metered));
    expect(await totals(alsoMetered)).toEqual(
      expected(alsoMetered, start.alsoMetered),
    );
    expect(await totals(othersMetered)).toEqual(
      expected(othersMetered, start.others),
    );
    expect((await totals(metered)).total).toBe(7);
  });
});
