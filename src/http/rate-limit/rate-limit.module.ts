import { Module } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { AuthFailureLimiter } from './auth-failure-limiter';
import {
  MemoryRateLimitStore,
  RateLimitStore,
  RedisRateLimitStore,
} from './rate-limit.store';

/**
 * The counter store: Redis when REDIS_URL is set (shared by replicas), else
 * memory; and the failed-authentication limiter that counts in it.
 */
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
  ],
  exports: [RateLimitStore, AuthFailureLimiter],
})
export class RateLimitModule {}
