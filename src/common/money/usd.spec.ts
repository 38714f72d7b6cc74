import fc from 'fast-check';
import { toUsdCents } from './usd';

describe('toUsdCents', () => {
  it('converts by the currencies’ minor digits', () => {
    expect(toUsdCents(1000, 'USD', 1)).toBe(1000);
    expect(toUsdCents(1000, 'EUR', 1.08)).toBe(1080);
    expect(toUsdCents(1000, 'EUR', '1.0800000000')).toBe(1080);
    expect(toUsdCents(500, 'JPY', 0.0066)).toBe(330);
    expect(toUsdCents(1234, 'KWD', 3.25)).toBe(401);
    // 5 cents at 1.1 is 5.5 cents: a half, rounded up exactly.
    expect(toUsdCents(5, 'EUR', 1.1)).toBe(6);
    expect(toUsdCents(0, 'EUR', 1.1)).toBe(0);
  });

  it('is the identity for USD and never decreases with the amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_147_483_647 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 50_000_000_000 }),
        (amount, more, rateUnits) => {
          const rate = rateUnits / 10_000_000_000;
          return (
            toUsdCents(amount, 'USD', 1) === amount &&
            toUsdCents(amount + more, 'EUR', rate) >=
              toUsdCents(amount, 'EUR', rate)
          );
        },
      ),
    );
  });
});
