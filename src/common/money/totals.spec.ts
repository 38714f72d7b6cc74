import fc from 'fast-check';
import { discountOff } from './discount';
import { saleTotals, SaleInput } from './totals';

const base: SaleInput = {
  subtotal: 2000,
  discount: 0,
  setupFee: 0,
  taxRate: 0,
  taxInclusive: false,
  currency: 'USD',
  usdRate: 1,
};

/** Any sale a checkout or an invoice can make. */
const sales = fc.record({
  unitPrice: fc.integer({ min: 0, max: 1_000_000 }),
  quantity: fc.integer({ min: 1, max: 1000 }),
  setupFee: fc.integer({ min: 0, max: 1_000_000 }),
  taxRate: fc.oneof(
    fc.constantFrom(0, 5, 7.7, 8.875, 19, 20, 21, 25, 27),
    fc.integer({ min: 0, max: 100 }),
  ),
  taxInclusive: fc.boolean(),
  discount: fc.record({
    amountType: fc.constantFrom('percent' as const, 'fixed' as const),
    amount: fc.integer({ min: 0, max: 2_000_000 }),
  }),
  currency: fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'GBP'),
  usdRate: fc.oneof(
    fc.constant(1),
    fc.integer({ min: 1, max: 50_000_000_000 }).map((u) => u / 1e10),
  ),
});

describe('saleTotals', () => {
  it('takes the discount off the subtotal, adds the setup fee, then taxes the rest', () => {
    expect(
      saleTotals({ ...base, discount: 500, setupFee: 100, taxRate: 20 }),
    ).toMatchObject({
      subtotal: 2000,
      discountTotal: 500,
      setupFee: 100,
      tax: 320,
      total: 1920,
    });
    expect(
      saleTotals({ ...base, subtotal: 1200, taxRate: 20, taxInclusive: true }),
    ).toMatchObject({ tax: 200, total: 1200 });
    expect(
      saleTotals({ ...base, currency: 'EUR', usdRate: 1.1, discount: 99999 }),
    ).toMatchObject({ discountTotal: 2000, total: 0, subtotalUsd: 2200 });
  });

  it('the issue’s case: 3 cents at 20 % inclusive carry no tax', () => {
    expect(
      saleTotals({ ...base, subtotal: 3, taxRate: 20, taxInclusive: true }),
    ).toMatchObject({ tax: 0, total: 3 });
  });

  it('keeps inclusive totals at the gross and exclusive totals at net + tax, never negative', () => {
    fc.assert(
      fc.property(sales, (sale) => {
        const subtotal = sale.unitPrice * sale.quantity;
        const t = saleTotals({
          subtotal,
          discount: discountOff(sale.discount, subtotal),
          setupFee: sale.setupFee,
          taxRate: sale.taxRate,
          taxInclusive: sale.taxInclusive,
          currency: sale.currency,
          usdRate: sale.usdRate,
        });
        const net = t.subtotal - t.discountTotal + t.setupFee;
        const figures = [
          t.subtotal,
          t.discountTotal,
          t.setupFee,
          t.tax,
          t.total,
          t.subtotalUsd,
          t.discountTotalUsd,
          t.setupFeeUsd,
          t.taxUsd,
          t.totalUsd,
        ];
        return (
          figures.every((f) => Number.isSafeInteger(f) && f >= 0) &&
          net >= t.setupFee &&
          (sale.taxInclusive ? t.total === net : t.total === net + t.tax) &&
          t.tax <= t.total
        );
      }),
      { numRuns: 2000 },
    );
  });
});
