import { Global, Module } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { PurchaseLimiter } from './purchase-limiter';
import {
  MemoryRateLimitStore,
  RateLimitStore,
  RedisRateLimitStore,
} from './rate-limit.store';

/**
 * The counter store: Redis when REDIS_URL is set (shared by replicas), else
 * memory; and the limiters that count in it. Global and part of the core, as
 * the purchase routes of domain modules report declines to PurchaseLimiter;
 * the Redis store connects only when the API process opens it.
 */
@Global()
@Module({
  providers: [
    {
      provide: RateLimitStore,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.queue.redisUrl
          ? new RedisRateLimitStore(
              config.queue.redisUrl,
              `${config.queue.prefix}:rate-limit`,
            )
          : new MemoryRateLimitStore(),
    },
    AuthFailureLimiter,
    PurchaseLimiter,
  ],
  exports: [RateLimitStore, AuthFailureLimiter, PurchaseLimiter],
})
export class RateLimitModule {}
