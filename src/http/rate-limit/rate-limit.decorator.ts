import { SetMetadata } from '@nestjs/common';

export const RATE_LIMIT_POLICY = 'zest:rate-limit-policy';

/**
 * - `api-key`: RATE_LIMIT_PER_MINUTE per API key (every authenticated route
 *   unless it says otherwise).
 * - `client-ip`: LICENSE_RATE_LIMIT_PER_MINUTE per client IP (the public
 *   License API).
 * - `none`: not limited.
 */
export type RateLimitPolicy = 'api-key' | 'client-ip' | 'none';

/** Chooses a route's (or controller's) rate-limit policy. */
export const RateLimit = (policy: RateLimitPolicy) =>
  SetMetadata(RATE_LIMIT_POLICY, policy);
