import request from 'supertest';
import { Client } from 'pg';
import { createMerchant, Merchant } from '../support/factories';
import { IdempotencyService } from '../../src/http/idempotency/idempotency.service';
import { startTestApp, TestApp } from '../support/test-app';
import { Executions, TestRoutesModule } from '../support/test-routes.module';

describe('Idempotency-Key on authenticated POSTs', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let executions: Executions;

  beforeAll(async () => {
    t = await startTestApp({}, { modules: [TestRoutesModule] });
    merchant = await createMerchant(t.app);
    other = await createMerchant(t.app);
    executions = t.app.get(Executions);
  });
  afterAll(() => t.close());

  const echo = (
    key: string | null,
    attributes: Record<string, string>,
    options: { apiKey?: string; path?: string } = {},
  ) => {
    let call = request(t.baseUrl)
      .post(options.path ?? '/v1/test-echoes')
      .set('Authorization', `Bearer ${options.apiKey ?? merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json');
    if (key !== null) call = call.set('Idempotency-Key', key);
    return call.send({ data: { type: 'test-echoes', attributes } });
  };

  it('runs the first request once and replays its response for repeats', async () => {
    const before = executions.echoes;
    const first = await echo('key-replay', { message: 'hi' }).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await echo('key-replay', { message: 'hi' }).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toEqual(first.body);
    expect(executions.echoes).toBe(before + 1);
    // Rate-limit headers are fresh on a replay, not stored ones.
    expect(Number(again.headers['x-ratelimit-remaining'])).toBeLessThan(
      Number(first.headers['x-ratelimit-remaining']),
    );
  });

  it('treats the same body with another key order as the same request', async () => {
    const raw = (body: string) =>
      request(t.baseUrl)
        .post('/v1/test-echoes')
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Content-Type', 'application/json')
        .set('Idempotency-Key', 'key-order')
        .send(body);
    await raw(
      '{"data":{"type":"test-echoes","attributes":{"message":"a"}}}',
    ).expect(201);
    const again = await raw(
      '{"data":{"attributes":{"message":"a"},"type":"test-echoes"}}',
    ).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 422 for the same key with a different body or path', async () => {
    await echo('key-mismatch', { message: 'one' }).expect(201);
    const body = await echo('key-mismatch', { message: 'two' }).expect(422);
    expect(body.body.errors[0].source).toEqual({ header: 'Idempotency-Key' });
    await echo(
      'key-mismatch',
      { message: 'one' },
      {
        path: '/v1/test-echoes?delay=0',
      },
    ).expect(422);
  });

  it('executes exactly one of several parallel identical requests; the rest get 409', async () => {
    const before = executions.echoes;
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        echo(
          'key-parallel',
          { message: 'race' },
          {
            path: '/v1/test-echoes?delay=2000',
          },
        ),
      ),
    );
    // One runs; one that arrives while it runs gets 409, and one that a busy
    // machine delivers after it finished gets its replay: never a second run.
    const replayed = (r: (typeof responses)[number]) =>
      r.headers['idempotent-replayed'] === 'true';
    expect(
      responses.filter((r) => r.status === 201 && !replayed(r)),
    ).toHaveLength(1);
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(
      true,
    );
    expect(responses.filter((r) => r.status === 409).length).toBeGreaterThan(0);
    const conflict = responses.find((r) => r.status === 409)!;
    expect(conflict.body.errors[0]).toMatchObject({
      status: '409',
      title: 'Conflict',
      source: { header: 'Idempotency-Key' },
    });
    expect(executions.echoes).toBe(before + 1);
    const replay = await echo(
      'key-parallel',
      { message: 'race' },
      {
        path: '/v1/test-echoes?delay=2000',
      },
    ).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(executions.echoes).toBe(before + 1);
  });

  it('stores a 4xx result and replays it', async () => {
    const first = await echo('key-4xx', {
      message: 'x',
      fail: 'client',
    }).expect(422);
    const again = await echo('key-4xx', {
      message: 'x',
      fail: 'client',
    }).expect(422);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('does not store a 5xx: the key is free for a retry', async () => {
    const before = executions.echoes;
    await echo('key-5xx', { message: 'x', fail: 'server' }).expect(500);
    const retry = await echo('key-5xx', {
      message: 'x',
      fail: 'server',
    }).expect(500);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.echoes).toBe(before + 2);
  });

  it('scopes keys by user and mode', async () => {
    const before = executions.echoes;
    await echo('key-scope', { message: 'x' }).expect(201);
    const live = await echo(
      'key-scope',
      { message: 'x' },
      {
        apiKey: merchant.liveKey,
      },
    ).expect(201);
    expect(live.headers['idempotent-replayed']).toBeUndefined();
    const foreign = await echo(
      'key-scope',
      { message: 'y' },
      {
        apiKey: other.testKey,
      },
    ).expect(201);
    expect(foreign.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.echoes).toBe(before + 3);
  });

  it('runs again once the stored response has expired', async () => {
    await echo('key-expiry', { message: 'x' }).expect(201);
    const client = new Client({ connectionString: t.database.url });
    await client.connect();
    try {
      await client.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'key-expiry'`,
      );
    } finally {
      await client.end();
    }
    const again = await echo('key-expiry', { message: 'different now' }).expect(
      201,
    );
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('purges expired records and keeps live ones (the worker runs this hourly)', async () => {
    await echo('key-purge-old', { message: 'x' }).expect(201);
    await echo('key-purge-new', { message: 'x' }).expect(201);
    const client = new Client({ connectionString: t.database.url });
    await client.connect();
    try {
      await client.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'key-purge-old'`,
      );
      expect(
        await t.app.get(IdempotencyService).purgeExpired(),
      ).toBeGreaterThanOrEqual(1);
      const { rows } = await client.query<{ key: string }>(
        `SELECT key FROM idempotency_keys WHERE key LIKE 'key-purge-%'`,
      );
      expect(rows.map((row) => row.key)).toEqual(['key-purge-new']);
    } finally {
      await client.end();
    }
  });

  it('purges every expired record in batches of 1,000 and counts them exactly', async () => {
    await echo('key-batch-live', { message: 'x' }).expect(201);
    const client = new Client({ connectionString: t.database.url });
    await client.connect();
    try {
      // 2,500 expired copies of the live record: three batches, the last short.
      await client.query(
        `INSERT INTO idempotency_keys
           (user_id, test_mode, key, fingerprint, claim, created_at, expires_at)
         SELECT user_id, test_mode, 'key-batch-expired-' || n, fingerprint,
                gen_random_uuid(), now() - interval '2 days', now() - interval '1 day'
           FROM idempotency_keys, generate_series(1, 2500) AS n
          WHERE key = 'key-batch-live'`,
      );
      expect(await t.app.get(IdempotencyService).purgeExpired()).toBe(2500);
      const { rows } = await client.query<{ key: string }>(
        `SELECT key FROM idempotency_keys WHERE key LIKE 'key-batch-%'`,
      );
      expect(rows.map((row) => row.key)).toEqual(['key-batch-live']);
      expect(await t.app.get(IdempotencyService).purgeExpired()).toBe(0);
    } finally {
      await client.end();
    }
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'has space'],
    ['non-ASCII', 'clé'],
  ])('refuses a key that is %s with 400', async (_, key) => {
    const response = await request(t.baseUrl)
      .post('/v1/test-echoes')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', key)
      .send({ data: { type: 'test-echoes', attributes: { message: 'x' } } })
      .expect(400);
    expect(response.body.errors[0].source).toEqual({
      header: 'Idempotency-Key',
    });
  });

  it('accepts a 255-character key, and POSTs without a key run every time', async () => {
    await echo('k'.repeat(255), { message: 'x' }).expect(201);
    const before = executions.echoes;
    await echo(null, { message: 'x' }).expect(201);
    await echo(null, { message: 'x' }).expect(201);
    expect(executions.echoes).toBe(before + 2);
  });

  it('applies to a real POST route too: parallel creates of one customer write one row', async () => {
    const body = JSON.stringify({
      data: {
        type: 'customers',
        attributes: { name: 'Once', email: 'once@example.com' },
        relationships: {
          store: {
            data: { type: 'stores', id: String(merchant.stores[0].id) },
          },
        },
      },
    });
    const create = () =>
      request(t.baseUrl)
        .post('/v1/customers')
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Content-Type', 'application/vnd.api+json')
        .set('Idempotency-Key', 'customer-once')
        .send(body);
    const responses = await Promise.all([create(), create(), create()]);
    // A request that arrives after the first has finished gets its replay
    // (201, Idempotent-Replayed) rather than 409: one write either way.
    const replayed = (r: (typeof responses)[number]) =>
      r.headers['idempotent-replayed'] === 'true';
    const created = responses.filter((r) => r.status === 201 && !replayed(r));
    expect(created).toHaveLength(1);
    for (const r of responses.filter(replayed))
      expect(r.body.data.id).toBe(created[0].body.data.id);
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(
      true,
    );
    const replay = await create().expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(created[0].body.data.id);
    const list = await request(t.baseUrl)
      .get('/v1/customers?filter[email]=once@example.com')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(list.body.data).toHaveLength(1);
  });
});
