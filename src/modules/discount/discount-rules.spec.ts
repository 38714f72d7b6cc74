import { discountAmount, discountRefusal } from './discount-rules';
import type { DiscountView } from './discount.entity';

const now = new Date('2026-06-01T12:00:00Z');

function discount(overrides: Partial<DiscountView> = {}): DiscountView {
  return {
    id: 1,
    storeId: 1,
    name: 'Launch',
    code: 'LAUNCH',
    amount: 10,
    amountType: 'percent',
    isLimitedToProducts: false,
    isLimitedRedemptions: false,
    maxRedemptions: 0,
    redemptionsCount: 0,
    startsAt: null,
    expiresAt: null,
    duration: 'once',
    durationInMonths: 1,
    status: 'published',
    testMode: true,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
    variantIds: [],
    ...overrides,
  };
}

describe('discount rules', () => {
  it('accepts a published discount inside its window', () => {
    expect(discountRefusal(discount(), now, 5)).toBeNull();
  });

  it('refuses drafts, early, expired, exhausted and other-variant uses', () => {
    expect(discountRefusal(discount({ status: 'draft' }), now, 5)).toEqual({
      code: 'discount_invalid',
      detail: expect.stringMatching(/not valid/),
    });
    expect(
      discountRefusal(
        discount({ startsAt: new Date('2026-06-02T00:00:00Z') }),
        now,
        5,
      ),
    ).toEqual({
      code: 'discount_not_active',
      detail: expect.stringMatching(/not active yet/),
    });
    expect(discountRefusal(discount({ expiresAt: now }), now, 5)).toEqual({
      code: 'discount_expired',
      detail: expect.stringMatching(/expired/),
    });
    expect(
      discountRefusal(
        discount({
          isLimitedRedemptions: true,
          maxRedemptions: 2,
          redemptionsCount: 2,
        }),
        now,
        5,
      ),
    ).toEqual({
      code: 'discount_exhausted',
      detail: expect.stringMatching(/fully redeemed/),
    });
    expect(
      discountRefusal(
        discount({ isLimitedToProducts: true, variantIds: [4] }),
        now,
        5,
      ),
    ).toEqual({
      code: 'discount_not_applicable',
      detail: expect.stringMatching(/does not apply/),
    });
  });

  it('computes percent and fixed amounts without going below zero', () => {
    expect(discountAmount({ amountType: 'percent', amount: 25 }, 999)).toBe(
      250,
    );
    expect(discountAmount({ amountType: 'percent', amount: 150 }, 999)).toBe(
      999,
    );
    expect(discountAmount({ amountType: 'fixed', amount: 500 }, 300)).toBe(300);
    expect(discountAmount({ amountType: 'fixed', amount: 100 }, 300)).toBe(100);
  });
});
