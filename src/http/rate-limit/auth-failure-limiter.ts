import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { clientAddressKey } from './client-address';
import { RATE_LIMIT_WINDOW_MS, retryAfterSeconds } from './rate-limited';
import { RateLimitStore } from './rate-limit.store';

/**
 * Counts failed authentications per client IP in the rate-limit store (Redis
 * when configured, so replicas share the count). Only failures are counted and
 * only failures are refused: a valid key from the same address is still
 * served, so one broken client behind a shared address (NAT, an untrusted
 * proxy) cannot lock out the others. Keys are 256-bit random; the limit is
 * there to make a hammering client back off, not to stop guessing.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly logger = new Logger(AuthFailureLimiter.name);

  constructor(
    private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Records one failure and returns the 401 to answer. Past the limit it is
   * still a 401, as the spec says for a bad key, but with `Retry-After` and
   * the code `too_many_failed_authentications`, so a client can tell that it
   * should back off rather than fix its key.
   */
  async refusal(ip: string, unauthorized: AppError): Promise<AppError> {
    const limit = this.config.rateLimit.authFailuresPerMinute;
    let hit;
    try {
      hit = await this.store.hit(
        `auth-failure:ip:${clientAddressKey(ip)}`,
        RATE_LIMIT_WINDOW_MS,
        limit,
      );
    } catch (error) {
      // Fail open, as the per-key limit does: the 401 still stands.
      this.logger.warn(
        { err: error },
        'Rate-limit store unavailable; failed authentication not counted',
      );
      return unauthorized;
    }
    if (hit.count <= limit) return unauthorized;
    return new AppError(
      401,
      {
        detail: `${unauthorized.message} Too many failed authentications from this address (limit ${limit} a minute): retry after the number of seconds in Retry-After.`,
        code: 'too_many_failed_authentications',
      },
      { 'retry-after': retryAfterSeconds(hit.resetInMs) },
    );
  }
}
