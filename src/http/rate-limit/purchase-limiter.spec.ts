import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { type AppConfig, loadConfig } from '../../config/app-config';
import { PurchaseLimiter, purchaseTarget } from './purchase-limiter';
import { MemoryRateLimitStore, RateLimitStore } from './rate-limit.store';

const config = (env: Record<string, string> = {}): AppConfig =>
  loadConfig({
    APP_KEY: 'purchase-limiter-spec-0123456789abcdefghijklmnop',
    PURCHASE_RATE_LIMIT_PER_MINUTE: '10',
    CHECKOUT_RATE_LIMIT_PER_MINUTE: '15',
    PURCHASE_DECLINE_WEIGHT: '3',
    CHECKOUT_LOCK_DECLINES: '4',
    CHECKOUT_LOCK_WINDOW_SECONDS: '600',
    CHECKOUT_LOCK_SECONDS: '300',
    ...env,
  });

const attempt = (ip: string, id = 'AAAA-1', kind = 'buy') =>
  ({
    ip,
    url: `/checkout/${kind}/${id}?signature=x`,
    params: { kind, id },
    routeOptions: { url: '/checkout/:kind/:id' },
  }) as unknown as FastifyRequest;

/** The refusal `admit` throws, or null when it admits. */
async function refusal(
  limiter: PurchaseLimiter,
  request: FastifyRequest,
): Promise<AppError | null> {
  try {
    await limiter.admit(request);
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe('PurchaseLimiter', () => {
  beforeEach(() =>
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }),
  );
  afterEach(() => jest.useRealTimers());

  it('counts against the route with its parameters, in any case', () => {
    expect(purchaseTarget(attempt('x', 'AbC-1'))).toBe('/checkout/buy/abc-1');
    expect(purchaseTarget(attempt('x', 'abc-1', 'custom'))).toBe(
      '/checkout/custom/abc-1',
    );
    // A Stripe store's card steps share the payment-method page's budget.
    for (const step of ['', '/setup', '/return'])
      expect(
        purchaseTarget({
          url: `/portal/subscriptions/7/payment-method${step}?signature=x`,
          params: { id: '7' },
          routeOptions: {
            url: `/portal/subscriptions/:id/payment-method${step}`,
          },
        } as unknown as FastifyRequest),
      ).toBe('/portal/subscriptions/7/payment-method');
  });

  it('admits PURCHASE_RATE_LIMIT_PER_MINUTE attempts per address, with the budget as headers', async () => {
    const limiter = new PurchaseLimiter(new MemoryRateLimitStore(), config());
    for (let i = 1; i <= 10; i++) {
      expect(await limiter.admit(attempt('203.0.113.1', `c${i}`))).toEqual({
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': String(10 - i),
      });
    }
    const refused = await refusal(limiter, attempt('203.0.113.1', 'c11'));
    expect(refused?.status).toBe(429);
    expect(refused?.errors[0].code).toBe('rate_limited');
    expect(refused?.headers['retry-after']).toBe('60');
    // Another address has its own budget.
    expect(await refusal(limiter, attempt('203.0.113.2', 'c11'))).toBeNull();
  });

  it('weighs a decline PURCHASE_DECLINE_WEIGHT in all, for the address and the checkout', async () => {
    const limiter = new PurchaseLimiter(new MemoryRateLimitStore(), config());
    // 3 declines cost 9 of the address's 10.
    for (let i = 0; i < 3; i++) {
      await limiter.admit(attempt('198.51.100.1', `d${i}`));
      await limiter.declined(attempt('198.51.100.1', `d${i}`));
    }
    expect(await refusal(limiter, attempt('198.51.100.1', 'd9'))).toBeNull();
    expect(
      (await refusal(limiter, attempt('198.51.100.1', 'd9')))?.errors[0].code,
    ).toBe('rate_limited');
    // The checkout's budget (15) is shared by every address: 4 declines from
    // 4 addresses cost 12, then 3 more attempts fit and the 4th does not.
    const shared = new PurchaseLimiter(
      new MemoryRateLimitStore(),
      config({ CHECKOUT_LOCK_DECLINES: '100' }),
    );
    for (let i = 0; i < 4; i++) {
      await shared.admit(attempt(`192.0.2.${i}`));
      await shared.declined(attempt(`192.0.2.${i}`));
    }
    for (let i = 0; i < 3; i++)
      expect(await refusal(shared, attempt(`192.0.2.${10 + i}`))).toBeNull();
    const full = await refusal(shared, attempt('192.0.2.20'));
    expect(full?.errors[0].detail).toMatch(/on this checkout/);
    expect(await refusal(shared, attempt('192.0.2.20', 'other'))).toBeNull();
  });

  it('pauses a checkout for every address after CHECKOUT_LOCK_DECLINES declines, for CHECKOUT_LOCK_SECONDS', async () => {
    const limiter = new PurchaseLimiter(new MemoryRateLimitStore(), config());
    for (let i = 0; i < 4; i++)
      await limiter.declined(attempt(`203.0.113.${i}`, 'LOCKED'));
    expect(await limiter.pausedForMs(attempt('x', 'locked'))).toBe(300_000);
    const refused = await refusal(limiter, attempt('198.51.100.77', 'locked'));
    expect(refused?.status).toBe(429);
    expect(refused?.errors[0].code).toBe('checkout_locked');
    expect(refused?.headers['retry-after']).toBe('300');
    // Other checkouts sell.
    expect(await refusal(limiter, attempt('198.51.100.77', 'open'))).toBeNull();
    jest.advanceTimersByTime(300_000);
    expect(await limiter.pausedForMs(attempt('x', 'locked'))).toBe(0);
    expect(
      await refusal(limiter, attempt('198.51.100.78', 'locked')),
    ).toBeNull();
  });

  it('lets purchases through when the store is down, with a warning', async () => {
    const warn = jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation(() => undefined);
    const down = new (class extends MemoryRateLimitStore {
      override add(): never {
        throw new Error('store down');
      }
      override peek(): never {
        throw new Error('store down');
      }
    })() as RateLimitStore;
    const limiter = new PurchaseLimiter(down, config());
    expect(await limiter.admit(attempt('203.0.113.9'))).toEqual({});
    await expect(
      limiter.declined(attempt('203.0.113.9')),
    ).resolves.toBeUndefined();
    expect(await limiter.pausedForMs(attempt('203.0.113.9'))).toBe(0);
    expect(warn.mock.calls.map((call) => call[1])).toEqual([
      'Rate-limit store unavailable; purchase attempt not counted',
      'Rate-limit store unavailable; declined payment not counted',
      'Rate-limit store unavailable; checkout pause not checked',
    ]);
    warn.mockRestore();
  });
});
