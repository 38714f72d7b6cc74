import fc from 'fast-check';
import {
  decimal,
  percentOf,
  roundDivide,
  share,
  timesDecimalCents,
} from './rounding';

describe('decimal', () => {
  it('reads a rate exactly as written', () => {
    expect(decimal('20.0000')).toEqual({ units: 200000n, scale: 10000n });
    expect(decimal(1.1)).toEqual({ units: 11n, scale: 10n });
    expect(decimal(20)).toEqual({ units: 20n, scale: 1n });
    expect(decimal(1e-7)).toEqual({ units: 1n, scale: 10000000n });
    expect(decimal(0.0066)).toEqual({ units: 66n, scale: 10000n });
    expect(decimal('.5')).toEqual({ units: 5n, scale: 10n });
    for (const bad of ['', '.', 'abc', '1,5', 'NaN'])
      expect(() => decimal(bad)).toThrow();
    expect(() => decimal(Number.NaN)).toThrow();
  });
});

describe('roundDivide', () => {
  it('rounds halves away from zero, exactly', () => {
    expect(roundDivide(5n, 2n)).toBe(3n);
    expect(roundDivide(-5n, 2n)).toBe(-3n);
    expect(roundDivide(7n, 3n)).toBe(2n);
    expect(roundDivide(-7n, 3n)).toBe(-2n);
    expect(roundDivide(5n, -2n)).toBe(-3n);
  });

  it('is Math.round for non-negative ratios a double holds exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1024 }),
        (n, k) => {
          // Powers of two keep the quotient exact in floating point.
          const d = 2 ** (k % 11);
          return (
            Number(roundDivide(BigInt(n), BigInt(d))) === Math.round(n / d)
          );
        },
      ),
    );
  });

  it('rounds a credit to the same magnitude as the equal charge', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        (n, d) => roundDivide(-n, d) === -roundDivide(n, d),
      ),
    );
  });
});

describe('share and percentOf', () => {
  it('take exact shares of an amount', () => {
    expect(share(1000, 1, 3)).toBe(333);
    expect(share(1000, 2, 3)).toBe(667);
    expect(share(-1000, 1, 2)).toBe(-500);
    expect(percentOf(999, 20)).toBe(200);
    expect(percentOf(1000, 12.5)).toBe(125);
    // 1005 × 7.7 % is 77.385; 5 × 10.1 % is 0.505, a half-cent tie a double misses.
    expect(percentOf(1005, 7.7)).toBe(77);
    expect(percentOf(5, 10.1)).toBe(1);
    expect(timesDecimalCents(1001, '0.25')).toBe(250);
    expect(timesDecimalCents(3, '0.5')).toBe(2);
    expect(timesDecimalCents(3, '0.1')).toBe(0);
    expect(() => timesDecimalCents(3, '-0.5')).toThrow();
  });
});
