import fc from 'fast-check';
import { refundedTax, splitTax } from './tax';

/** Tax rates as configured: whole percents and a few decimals (7.7, 8.875). */
const rate = fc.oneof(
  fc.integer({ min: 0, max: 100 }),
  fc.integer({ min: 0, max: 100_000 }).map((thousandths) => thousandths / 1000),
);
const amount = fc.integer({ min: 0, max: 100_000_000 });

describe('splitTax', () => {
  it('adds exclusive tax on top and carves inclusive tax out', () => {
    expect(splitTax(1000, 20, false)).toEqual({
      net: 1000,
      tax: 200,
      gross: 1200,
    });
    expect(splitTax(1200, 20, true)).toEqual({
      net: 1000,
      tax: 200,
      gross: 1200,
    });
    expect(splitTax(1200, '20.0000', true).tax).toBe(200);
    expect(splitTax(1000, 0, true)).toEqual({ net: 1000, tax: 0, gross: 1000 });
  });

  it('rounds the net of an inclusive price, not its tax', () => {
    // 3 cents at 20 %: the net is 2.5 cents, rounded to 3, so the tax is 0
    // (rounding the tax instead, 0.5 → 1, was the invoices' old rule).
    expect(splitTax(3, 20, true)).toEqual({ net: 3, tax: 0, gross: 3 });
    expect(splitTax(999, 20, true)).toEqual({ net: 833, tax: 166, gross: 999 });
  });

  it('keeps an inclusive total equal to the gross, and exclusive total = net + tax', () => {
    fc.assert(
      fc.property(amount, rate, (gross, r) => {
        const inclusive = splitTax(gross, r, true);
        const exclusive = splitTax(gross, r, false);
        return (
          inclusive.gross === gross &&
          inclusive.net + inclusive.tax === gross &&
          inclusive.tax >= 0 &&
          exclusive.net === gross &&
          exclusive.gross === exclusive.net + exclusive.tax &&
          exclusive.tax >= 0
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('gives an inclusive price the split of the exclusive sale it grosses up', () => {
    fc.assert(
      fc.property(amount, rate, (net, r) => {
        const exclusive = splitTax(net, r, false);
        expect(splitTax(exclusive.gross, r, true)).toEqual(exclusive);
      }),
      { numRuns: 2000 },
    );
  });

  it('is within half a cent of the exact tax', () => {
    fc.assert(
      fc.property(amount, fc.integer({ min: 0, max: 100 }), (value, r) => {
        const inclusive = splitTax(value, r, true);
        const exclusive = splitTax(value, r, false);
        // Compared scaled by (100 + r) and 100 to stay in integers.
        return (
          Math.abs(inclusive.tax * (100 + r) - value * r) * 2 <= 100 + r &&
          Math.abs(exclusive.tax * 100 - value * r) * 2 <= 100
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe('refundedTax', () => {
  it('gives back tax in proportion to the amount refunded', () => {
    expect(refundedTax(190, 1190, 595)).toBe(95);
    expect(refundedTax(190, 1190, 1190)).toBe(190);
    expect(refundedTax(190, 1190, 0)).toBe(0);
    expect(refundedTax(0, 0, 0)).toBe(0);
  });

  it('adds up over partial refunds to the whole tax, never more', () => {
    fc.assert(
      fc.property(
        amount,
        rate,
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1 }),
        (net, r, parts) => {
          const sale = splitTax(net, r, false);
          let refunded = 0;
          let previous = 0;
          for (const part of parts) {
            refunded = Math.min(sale.gross, refunded + part);
            const now = refundedTax(sale.tax, sale.gross, refunded);
            if (now < previous || now > sale.tax) return false;
            // Within a cent of the exact share.
            if (
              Math.abs(now * sale.gross - sale.tax * refunded) * 2 >
              sale.gross
            )
              return false;
            previous = now;
          }
          return refundedTax(sale.tax, sale.gross, sale.gross) === sale.tax;
        },
      ),
      { numRuns: 1000 },
    );
  });
});
