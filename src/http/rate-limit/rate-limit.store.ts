import { Logger, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';

export interface RateLimitHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window closes and the count starts over. */
  resetInMs: number;
}

/**
 * Fixed windows that open with a counter's first request and last
 * `windowMs`: a window never spans a clock-minute boundary the client cannot
 * see, and Retry-After is exactly the time until it closes.
 */
export abstract class RateLimitStore {
  abstract hit(key: string, windowMs: number): Promise<RateLimitHit>;
}

const SWEEP_AT_SIZE = 10_000;

/** One process (the embedded default): counters in memory. */
export class MemoryRateLimitStore extends RateLimitStore {
  private readonly windows = new Map<
    string,
    { count: number; resetAt: number }
  >();

  hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= SWEEP_AT_SIZE) this.sweep(now);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return Promise.resolve({
      count: window.count,
      resetInMs: window.resetAt - now,
    });
  }

  private sweep(now: number) {
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key);
    }
  }
}

/**
 * INCR, and PEXPIRE on the window's first hit, in one atomic script: one round
 * trip per request, and no counter can be left without an expiry.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

type ScriptedRedis = Redis & {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
};

/** Several API replicas: counters in Redis, so the limit holds across them. */
export class RedisRateLimitStore
  extends RateLimitStore
  implements OnModuleDestroy
{
  private readonly logger = new Logger(RedisRateLimitStore.name);
  private readonly redis: ScriptedRedis;

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
    }) as ScriptedRedis;
    this.redis.defineCommand('rateLimitHit', {
      numberOfKeys: 1,
      lua: HIT_SCRIPT,
    });
    this.redis.on('error', (error: Error) =>
      this.logger.warn(`Rate-limit Redis connection: ${error.message}`),
    );
  }

  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const [count, ttl] = await this.redis.rateLimitHit(
      `${this.prefix}:${key}`,
      windowMs,
    );
    return { count, resetInMs: ttl };
  }

  async onModuleDestroy() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
