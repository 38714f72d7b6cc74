import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { clientAddressKey } from './client-address';
import { RATE_LIMIT_WINDOW_MS, rateLimited } from './rate-limited';
import { PurchaseAdmission, RateLimitStore } from './rate-limit.store';

/**
 * What a purchase route is counted against: its path with the parameters
 * filled in (`/checkout/buy/<variant uuid>`, `/checkout/custom/<checkout
 * uuid>`, `/portal/subscriptions/<id>/payment-method`, which its `/setup`
 * and `/return` steps share), lowercased because the UUIDs match in any
 * case. The page at the same path shares it.
 */
export function purchaseTarget(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  const template = request.routeOptions.url ?? request.url.split('?')[0];
  return (
    template
      .replace(/:(\w+)/g, (_, name: string) =>
        (params[name] ?? '').toLowerCase(),
      )
      .replace(/\/+$/, '')
      // A Stripe store's card steps count against the payment-method page's target.
      .replace(/\/payment-method\/(?:setup|return)$/, '/payment-method')
  );
}

/**
 * Card testing: a fraudster runs stolen card numbers through a public
 * purchase form to learn which work. The limits, all in the rate-limit store
 * (Redis when configured, so every API replica sees the same counts):
 * - per client IP: PURCHASE_RATE_LIMIT_PER_MINUTE points a minute;
 * - per checkout: CHECKOUT_RATE_LIMIT_PER_MINUTE points a minute, so many
 *   addresses cannot share one checkout's budget either;
 * - an attempt costs 1 point when admitted, and a declined payment
 *   PURCHASE_DECLINE_WEIGHT points in all (charged when the decline is
 *   reported): buyers who pay are rarely slowed, a run of declines soon is;
 * - CHECKOUT_LOCK_DECLINES declines on one checkout within
 *   CHECKOUT_LOCK_WINDOW_SECONDS pause its purchases for
 *   CHECKOUT_LOCK_SECONDS, from every address (its page still renders and
 *   says so).
 * Refusals are 429 with Retry-After and the code `rate_limited` or
 * `checkout_locked`. If the store is unreachable, purchases go through and a
 * warning is logged, as for every other limit.
 */
@Injectable()
export class PurchaseLimiter {
  private readonly logger = new Logger(PurchaseLimiter.name);

  constructor(
    private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get limits() {
    return this.config.rateLimit.purchase;
  }

  /**
   * Before an attempt: refuses it (throws the 429) or counts it and returns
   * the client's budget as X-Ratelimit-* headers.
   */
  async admit(request: FastifyRequest): Promise<Record<string, string>> {
    const target = purchaseTarget(request);
    const limits = this.limits;
    let admission: PurchaseAdmission;
    try {
      // An attempt on a paused checkout still counts against its address.
      admission = await this.store.admitPurchase(
        {
          lock: `purchase:lock:${target}`,
          ip: this.ipKey(request),
          checkout: `purchase:checkout:${target}`,
        },
        RATE_LIMIT_WINDOW_MS,
        limits.perIpPerMinute,
      );
    } catch (error) {
      return this.failOpen(error);
    }
    const { lock, ip, checkout } = admission;
    if (lock !== null) {
      throw rateLimited(
        'Purchases on this checkout are paused after too many declined payments.',
        lock.resetInMs,
        {},
        'checkout_locked',
      );
    }
    const headers = {
      'x-ratelimit-limit': String(limits.perIpPerMinute),
      'x-ratelimit-remaining': String(
        Math.max(0, limits.perIpPerMinute - ip.count),
      ),
    };
    if (ip.count > limits.perIpPerMinute) {
      throw rateLimited(
        `Too many purchase attempts from this address (${limits.perIpPerMinute} a minute; a declined payment counts ${limits.declineWeight}).`,
        ip.resetInMs,
        headers,
      );
    }
    // Counted only once the address is admitted (see admitPurchase).
    if (checkout !== null && checkout.count > limits.perCheckoutPerMinute) {
      throw rateLimited(
        `Too many purchase attempts on this checkout (${limits.perCheckoutPerMinute} a minute).`,
        checkout.resetInMs,
        headers,
      );
    }
    return headers;
  }

  /**
   * After a declined payment: the rest of its weight on both counters, one
   * more decline on the checkout, and the pause once there are enough.
   */
  async declined(request: FastifyRequest): Promise<void> {
    const target = purchaseTarget(request);
    const limits = this.limits;
    const extra = limits.declineWeight - 1;
    try {
      const weighted =
        extra > 0
          ? [
              this.store.add(this.ipKey(request), RATE_LIMIT_WINDOW_MS, extra),
              this.store.add(
                `purchase:checkout:${target}`,
                RATE_LIMIT_WINDOW_MS,
                extra,
              ),
            ]
          : [];
      const [declines] = await Promise.all([
        this.store.add(`purchase:declines:${target}`, limits.lockWindowMs, 1),
        ...weighted,
      ]);
      if (declines.count >= limits.lockDeclines) {
        // The first add opens the pause; later ones do not extend it.
        const lock = await this.store.add(
          `purchase:lock:${target}`,
          limits.lockMs,
          1,
        );
        if (lock.count === 1) {
          this.logger.warn(
            `Purchases at ${target} paused for ${Math.round(lock.resetInMs / 1000)} s after ${declines.count} declined payments`,
          );
        }
      }
    } catch (error) {
      this.logger.warn(
        { err: error },
        'Rate-limit store unavailable; declined payment not counted',
      );
    }
  }

  /** How long purchases at the request's path stay paused; 0 when they are not. */
  async pausedForMs(request: FastifyRequest): Promise<number> {
    try {
      const lock = await this.store.peek(
        `purchase:lock:${purchaseTarget(request)}`,
      );
      return lock?.resetInMs ?? 0;
    } catch (error) {
      this.logger.warn(
        { err: error },
        'Rate-limit store unavailable; checkout pause not checked',
      );
      return 0;
    }
  }

  private ipKey(request: FastifyRequest): string {
    return `purchase:ip:${clientAddressKey(request.ip)}`;
  }

  private failOpen(error: unknown): Record<string, string> {
    // An outage of the counter store must not stop sales.
    this.logger.warn(
      { err: error },
      'Rate-limit store unavailable; purchase attempt not counted',
    );
    return {};
  }
}
