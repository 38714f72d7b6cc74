import { SetMetadata } from '@nestjs/common';

export const RATE_LIMIT_POLICY = 'zest:rate-limit-policy';

/**
 * - `api-key`: RATE_LIMIT_PER_MINUTE per API key (every authenticated route
 *   unless it says otherwise).
 * - `client-ip`: LICENSE_RATE_LIMIT_PER_MINUTE per client IP (the public
 *   License API).
 * - `page`: PAGE_RATE_LIMIT_PER_MINUTE per client IP (buyer-facing pages,
 *   signed downloads, the API reference).
 * - `purchase`: PURCHASE_RATE_LIMIT_PER_MINUTE per client IP and
 *   CHECKOUT_RATE_LIMIT_PER_MINUTE per checkout (the route's path with its
 *   parameters), declines weighted PURCHASE_DECLINE_WEIGHT, and a pause of
 *   the checkout after CHECKOUT_LOCK_DECLINES declines (see PurchaseLimiter).
 * - `none`: not limited.
 *
 * A public route must declare one: the app refuses to start otherwise
 * (applyRoutePolicies).
 */
export const RATE_LIMIT_POLICIES = [
  'api-key',
  'client-ip',
  'page',
  'purchase',
  'none',
] as const;
export type RateLimitPolicy = (typeof RATE_LIMIT_POLICIES)[number];

/** Chooses a route's (or controller's) rate-limit policy. */
export const RateLimit = (policy: RateLimitPolicy) =>
  SetMetadata(RATE_LIMIT_POLICY, policy);
