import fc from 'fast-check';
import { discountOff } from './discount';

describe('discountOff', () => {
  it('takes a percentage or a fixed amount off, at most the subtotal', () => {
    expect(discountOff({ amountType: 'percent', amount: 10 }, 1999)).toBe(200);
    expect(discountOff({ amountType: 'percent', amount: 150 }, 1000)).toBe(
      1000,
    );
    expect(discountOff({ amountType: 'fixed', amount: 500 }, 300)).toBe(300);
    expect(discountOff({ amountType: 'fixed', amount: 500 }, 0)).toBe(0);
    expect(discountOff({ amountType: 'fixed', amount: -5 }, 100)).toBe(0);
  });

  it('never makes the subtotal negative', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('percent' as const, 'fixed' as const),
        fc.integer({ min: -1000, max: 2_147_483_647 }),
        fc.integer({ min: 0, max: 2_147_483_647 }),
        (amountType, value, subtotal) => {
          const off = discountOff({ amountType, amount: value }, subtotal);
          return (
            Number.isSafeInteger(off) &&
            off >= 0 &&
            off <= subtotal &&
            subtotal - off >= 0
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
