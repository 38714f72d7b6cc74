import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisRateLimitStore } from './rate-limit.store';

const redisUrl = process.env.REDIS_URL;
const describeWithRedis = redisUrl ? describe : describe.skip;

/**
 * Counts the Lua scripts `store` sends to Redis (its one round trip per
 * lease). Counted on the store's own client: Redis's server-wide command
 * stats also count the scripts of test files running beside this one.
 */
function countScriptCalls(store: RedisRateLimitStore): () => number {
  const client = (store as unknown as { redis: Redis }).redis;
  const send = client.sendCommand.bind(client);
  let calls = 0;
  client.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    if (/^eval/i.test(args[0].name)) calls++;
    return send(...args);
  }) as Redis['sendCommand'];
  return () => calls;
}

describeWithRedis('RedisRateLimitStore (leased counts on a real Redis)', () => {
  const WINDOW = 60_000;
  let redis: Redis;
  let prefix: string;
  const stores: RedisRateLimitStore[] = [];
  const replica = async () => {
    const store = new RedisRateLimitStore(redisUrl!, prefix);
    stores.push(store);
    await store.connected();
    return store;
  };

  beforeAll(() => {
    redis = new Redis(redisUrl!);
  });
  beforeEach(() => {
    prefix = `zest-rl-spec-${randomBytes(4).toString('hex')}`;
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.onModuleDestroy()));
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  afterAll(() => redis.quit());

  it('hands one replica the exact counts 1, 2, 3… and refuses past the limit without asking Redis', async () => {
    const store = await replica();
    const counts: number[] = [];
    for (let i = 0; i < 400; i++)
      counts.push((await store.hit('key:1', WINDOW, 300)).count);
    expect(counts.slice(0, 300)).toEqual(
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
    expect(counts.slice(300).every((count) => count > 300)).toBe(true);
    // Reserved in Redis: exactly the 300; the refusals never reached it.
    expect(Number(await redis.get(`${prefix}:key:1`))).toBe(300);
  });

  it('reserves in leases: far fewer Redis calls than requests while the limit is far', async () => {
    const store = await replica();
    const scriptCalls = countScriptCalls(store);
    await Promise.all(
      Array.from({ length: 1000 }, () => store.hit('key:2', WINDOW, 1e9)),
    );
    const calls = scriptCalls();
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThanOrEqual(20);
  });

  it('never admits more than the limit across replicas hit in parallel, and hands out each count once', async () => {
    const replicas = await Promise.all([replica(), replica(), replica()]);
    const limit = 500;
    const hits = await Promise.all(
      Array.from({ length: 900 }, (_, i) =>
        replicas[i % 3].hit('key:3', WINDOW, limit),
      ),
    );
    const admitted = hits
      .map((hit) => hit.count)
      .filter((count) => count <= limit);
    expect(new Set(admitted).size).toBe(admitted.length);
    expect(admitted.length).toBeLessThanOrEqual(limit);
    // What the replicas reserved and left unused is at most 1/64 of the
    // limit each (here every replica keeps getting requests: none is lost).
    expect(admitted.length).toBeGreaterThanOrEqual(limit - 3 * (limit / 64));
  });

  it('starts over when the window closes', async () => {
    const store = await replica();
    expect((await store.hit('key:4', 300, 5)).count).toBe(1);
    expect((await store.hit('key:4', 300, 5)).count).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const hit = await store.hit('key:4', 300, 5);
    expect(hit.count).toBe(1);
    expect(hit.resetInMs).toBeGreaterThan(200);
    expect(hit.resetInMs).toBeLessThanOrEqual(300);
  });

  it('adds weighted counts exactly, opening the window on the first, and peeks without counting', async () => {
    const store = await replica();
    expect(await store.peek('key:5')).toBeNull();
    const first = await store.add('key:5', WINDOW, 4);
    expect(first.count).toBe(4);
    expect(first.resetInMs).toBeGreaterThan(WINDOW - 1000);
    expect((await store.add('key:5', WINDOW, 1)).count).toBe(5);
    const peeked = await store.peek('key:5');
    expect(peeked?.count).toBe(5);
    expect(peeked!.resetInMs).toBeLessThanOrEqual(WINDOW);
    expect(Number(await redis.get(`${prefix}:key:5`))).toBe(5);
    // Another replica sees the same counter at once (no lease in between).
    const other = await replica();
    expect((await other.add('key:5', WINDOW, 2)).count).toBe(7);
    expect((await other.peek('key:5'))?.count).toBe(7);
  });

  it('admits a purchase attempt in one script: the address always counted, the checkout only when not paused and the address within its limit', async () => {
    const store = await replica();
    const scriptCalls = countScriptCalls(store);
    const keys = { lock: 'p:lock:a', ip: 'p:ip:1', checkout: 'p:checkout:a' };
    const first = await store.admitPurchase(keys, WINDOW, 2);
    expect(first.lock).toBeNull();
    expect(first.ip.count).toBe(1);
    expect(first.ip.resetInMs).toBeGreaterThan(WINDOW - 1000);
    expect(first.checkout?.count).toBe(1);
    expect((await store.admitPurchase(keys, WINDOW, 2)).checkout?.count).toBe(
      2,
    );
    // The address over its limit: the checkout's budget is left alone.
    const over = await store.admitPurchase(keys, WINDOW, 2);
    expect(over).toMatchObject({
      lock: null,
      ip: { count: 3 },
      checkout: null,
    });
    expect(Number(await redis.get(`${prefix}:p:checkout:a`))).toBe(2);
    // A paused checkout: reported with its time left, the address counted.
    await redis.set(`${prefix}:p:lock:b`, '1', 'PX', 5000);
    const paused = await store.admitPurchase(
      { lock: 'p:lock:b', ip: 'p:ip:2', checkout: 'p:checkout:b' },
      WINDOW,
      2,
    );
    expect(paused.lock?.count).toBe(1);
    expect(paused.lock!.resetInMs).toBeGreaterThan(0);
    expect(paused.lock!.resetInMs).toBeLessThanOrEqual(5000);
    expect(paused.ip.count).toBe(1);
    expect(paused.checkout).toBeNull();
    expect(await redis.get(`${prefix}:p:checkout:b`)).toBeNull();
    expect(scriptCalls()).toBe(4);
  });

  it('does not connect until opened (the worker loads the store but never counts)', async () => {
    const store = new RedisRateLimitStore(redisUrl!, prefix);
    stores.push(store);
    const client = (store as unknown as { redis: Redis }).redis;
    expect(client.status).toBe('wait');
    await store.connected();
    expect(client.status).toBe('ready');
  });
});
