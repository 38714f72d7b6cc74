import { Logger, OnModuleDestroy } from '@nestjs/common';
import { once } from 'node:events';
import { Redis } from 'ioredis';

export interface RateLimitHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window closes and the count starts over. */
  resetInMs: number;
}

/** The counters of a purchase attempt (see `RateLimitStore.admitPurchase`). */
export interface PurchaseKeys {
  lock: string;
  ip: string;
  checkout: string;
}

export interface PurchaseAdmission {
  /** The checkout's open pause, if any. */
  lock: RateLimitHit | null;
  ip: RateLimitHit;
  /** Null when not counted (paused, or the address over its limit). */
  checkout: RateLimitHit | null;
}

/**
 * Fixed windows that open with a counter's first request and last
 * `windowMs`: a window never spans a clock-minute boundary the client cannot
 * see, and Retry-After is exactly the time until it closes.
 */
export abstract class RateLimitStore {
  /** Counts one request; `limit` lets a store skip work it knows is refused. */
  abstract hit(
    key: string,
    windowMs: number,
    limit: number,
  ): Promise<RateLimitHit>;

  /**
   * Adds `amount` to a counter exactly, at once (no lease: one round trip to
   * a shared store), opening its window if none is open. For weighted counts
   * and for counters that are only ever added to this way.
   */
  abstract add(
    key: string,
    windowMs: number,
    amount: number,
  ): Promise<RateLimitHit>;

  /** A counter's open window, or null when it has none. Counts nothing. */
  abstract peek(key: string): Promise<RateLimitHit | null>;

  /**
   * A purchase attempt's counts (PurchaseLimiter): `keys.lock`'s open window
   * (the checkout's pause) is peeked and `keys.ip` counted, always; then
   * `keys.checkout` is counted only when there is no pause and the address
   * is within `ipLimit`, so that one address cannot spend a checkout's
   * budget for everyone else. A shared store does it in one round trip.
   */
  async admitPurchase(
    keys: PurchaseKeys,
    windowMs: number,
    ipLimit: number,
  ): Promise<PurchaseAdmission> {
    const [lock, ip] = await Promise.all([
      this.peek(keys.lock),
      this.add(keys.ip, windowMs, 1),
    ]);
    if (lock !== null || ip.count > ipLimit)
      return { lock, ip, checkout: null };
    return { lock, ip, checkout: await this.add(keys.checkout, windowMs, 1) };
  }

  /** Starts connecting to a shared store (the API process calls it at start). */
  open(): void {}
}

const SWEEP_AT_SIZE = 10_000;

/** One process (the embedded default): counters in memory. */
export class MemoryRateLimitStore extends RateLimitStore {
  private readonly windows = new Map<
    string,
    { count: number; resetAt: number }
  >();

  hit(key: string, windowMs: number): Promise<RateLimitHit> {
    return this.add(key, windowMs, 1);
  }

  add(key: string, windowMs: number, amount: number): Promise<RateLimitHit> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= SWEEP_AT_SIZE) this.sweep(now);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += amount;
    return Promise.resolve({
      count: window.count,
      resetInMs: window.resetAt - now,
    });
  }

  peek(key: string): Promise<RateLimitHit | null> {
    const now = Date.now();
    const window = this.windows.get(key);
    return Promise.resolve(
      window && window.resetAt > now
        ? { count: window.count, resetInMs: window.resetAt - now }
        : null,
    );
  }

  private sweep(now: number) {
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key);
    }
  }
}

/**
 * Reserves a lease of counts in one atomic step: INCRBY, and PEXPIRE on the
 * window's first hit, so no counter is left without an expiry. The lease is
 * 1/LEASE_DIVISOR of what the window has left (at least 1, at most
 * MAX_LEASE): near the limit every request reserves its own count.
 */
const LEASE_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local size = math.floor((tonumber(ARGV[2]) - current) / tonumber(ARGV[3]))
if size < 1 then size = 1 end
if size > tonumber(ARGV[4]) then size = tonumber(ARGV[4]) end
local count = redis.call('INCRBY', KEYS[1], size)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl, size}
`;
export const LEASE_DIVISOR = 64;
export const MAX_LEASE = 100;

/** INCRBY and, on the window's first count, PEXPIRE: in one step. */
const ADD_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** The count and time left of an open window, or nil. */
const PEEK_SCRIPT = `
local count = redis.call('GET', KEYS[1])
if not count then return nil end
return {tonumber(count), redis.call('PTTL', KEYS[1])}
`;

/**
 * `RateLimitStore.admitPurchase` in one step: KEYS lock, ip, checkout;
 * ARGV window, the address's limit. Answers {ip count, ip ttl}, then the
 * pause's {count, ttl} when one is open (else -1, -1), then the checkout's
 * {count, ttl} when it was counted.
 */
const PURCHASE_SCRIPT = `
local function add(key)
  local count = redis.call('INCRBY', key, 1)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  return count, ttl
end
local ipCount, ipTtl = add(KEYS[2])
local lock = redis.call('GET', KEYS[1])
if lock then
  local lockTtl = redis.call('PTTL', KEYS[1])
  if lockTtl > 0 then return {ipCount, ipTtl, tonumber(lock), lockTtl} end
end
if ipCount > tonumber(ARGV[2]) then return {ipCount, ipTtl, -1, -1} end
local count, ttl = add(KEYS[3])
return {ipCount, ipTtl, -1, -1, count, ttl}
`;

type ScriptedRedis = Redis & {
  rateLimitPurchase(
    lockKey: string,
    ipKey: string,
    checkoutKey: string,
    windowMs: number,
    ipLimit: number,
  ): Promise<number[]>;
  rateLimitLease(
    key: string,
    windowMs: number,
    limit: number,
    divisor: number,
    maxLease: number,
  ): Promise<[number, number, number]>;
  rateLimitAdd(
    key: string,
    windowMs: number,
    amount: number,
  ): Promise<[number, number]>;
  rateLimitPeek(key: string): Promise<[number, number] | null>;
};

/** Counts of one window reserved in Redis and not yet handed out. */
interface Lease {
  next: number;
  last: number;
  resetAt: number;
}

/**
 * Several API replicas: counters in Redis, so the limit holds across them.
 * A replica reserves counts in leases and hands them out itself, so most
 * requests cost no Redis round trip. Every count is reserved in Redis before
 * it is handed out, so the replicas together never admit more than the
 * limit. They may admit a little less: counts a replica reserved and did not
 * use before the window closed (at most 1/64 of the limit each) are lost.
 * Past the limit, a replica refuses without asking Redis until the window
 * closes.
 */
export class RedisRateLimitStore
  extends RateLimitStore
  implements OnModuleDestroy
{
  private readonly logger = new Logger(RedisRateLimitStore.name);
  private readonly redis: ScriptedRedis;
  private readonly leases = new Map<string, Lease>();
  /** One reservation in flight per key; concurrent requests share it. */
  private readonly reserving = new Map<string, Promise<void>>();

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    super();
    this.redis = new Redis(url, {
      // Fail fast rather than hold requests while Redis is away.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectionName: 'zest-rate-limit',
      // The worker loads the module (its controllers are instantiated too)
      // but serves no request: only the API process connects (`open`).
      lazyConnect: true,
    }) as ScriptedRedis;
    this.redis.defineCommand('rateLimitLease', {
      numberOfKeys: 1,
      lua: LEASE_SCRIPT,
    });
    this.redis.defineCommand('rateLimitAdd', {
      numberOfKeys: 1,
      lua: ADD_SCRIPT,
    });
    this.redis.defineCommand('rateLimitPeek', {
      numberOfKeys: 1,
      lua: PEEK_SCRIPT,
    });
    this.redis.defineCommand('rateLimitPurchase', {
      numberOfKeys: 3,
      lua: PURCHASE_SCRIPT,
    });
    this.redis.on('error', (error: Error) =>
      this.logger.warn(`Rate-limit Redis connection: ${error.message}`),
    );
  }

  override open(): void {
    // Afterwards ioredis reconnects by itself whenever the connection drops.
    if (this.redis.status === 'wait') this.redis.connect().catch(() => {});
  }

  /** Resolves once connected. Requests never wait for it: they fail open. */
  async connected(): Promise<void> {
    this.open();
    if (this.redis.status !== 'ready') await once(this.redis, 'ready');
  }

  async add(
    key: string,
    windowMs: number,
    amount: number,
  ): Promise<RateLimitHit> {
    const [count, ttl] = await this.redis.rateLimitAdd(
      `${this.prefix}:${key}`,
      windowMs,
      amount,
    );
    return { count, resetInMs: ttl };
  }

  async peek(key: string): Promise<RateLimitHit | null> {
    const window = await this.redis.rateLimitPeek(`${this.prefix}:${key}`);
    // PTTL is -1 only between INCRBY and PEXPIRE, which one script spans.
    return window && window[1] > 0
      ? { count: window[0], resetInMs: window[1] }
      : null;
  }

  override async admitPurchase(
    keys: PurchaseKeys,
    windowMs: number,
    ipLimit: number,
  ): Promise<PurchaseAdmission> {
    const [ipCount, ipTtl, lockCount, lockTtl, count, ttl] =
      await this.redis.rateLimitPurchase(
        `${this.prefix}:${keys.lock}`,
        `${this.prefix}:${keys.ip}`,
        `${this.prefix}:${keys.checkout}`,
        windowMs,
        ipLimit,
      );
    return {
      lock: lockTtl > 0 ? { count: lockCount, resetInMs: lockTtl } : null,
      ip: { count: ipCount, resetInMs: ipTtl },
      checkout: count === undefined ? null : { count, resetInMs: ttl },
    };
  }

  async hit(
    key: string,
    windowMs: number,
    limit: number,
  ): Promise<RateLimitHit> {
    for (;;) {
      const now = Date.now();
      const lease = this.leases.get(key);
      if (lease && lease.resetAt > now) {
        const resetInMs = lease.resetAt - now;
        if (lease.next <= lease.last) return { count: lease.next++, resetInMs };
        // Counts only grow within a window: once the limit is reserved,
        // every further request is refused, whoever asks Redis.
        if (lease.last >= limit) return { count: lease.last + 1, resetInMs };
      }
      let reservation = this.reserving.get(key);
      if (!reservation) {
        reservation = this.reserve(key, windowMs, limit).finally(() =>
          this.reserving.delete(key),
        );
        this.reserving.set(key, reservation);
      }
      await reservation;
    }
  }

  private async reserve(key: string, windowMs: number, limit: number) {
    // The window's end as seen from before the call: never later than Redis's.
    const asked = Date.now();
    const [last, ttl, size] = await this.redis.rateLimitLease(
      `${this.prefix}:${key}`,
      windowMs,
      limit,
      LEASE_DIVISOR,
      MAX_LEASE,
    );
    if (this.leases.size >= SWEEP_AT_SIZE) {
      const now = Date.now();
      for (const [leased, lease] of this.leases)
        if (lease.resetAt <= now) this.leases.delete(leased);
    }
    this.leases.set(key, { next: last - size + 1, last, resetAt: asked + ttl });
  }

  async onModuleDestroy() {
    if (this.redis.status === 'wait') this.redis.disconnect();
    else await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
