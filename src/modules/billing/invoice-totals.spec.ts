import fc from 'fast-check';
import { unitPriceAtSignup } from '../catalog/signup-charge';
import { computeTotals } from '../checkout/pricing';
import { discountAmount } from '../discount/discount-rules';
import { initialLines } from './invoice-lines';
import { invoiceAmounts } from './invoice-totals';
import { PriceTerms } from './pricing';

const meteredTerms: PriceTerms = {
  scheme: 'standard',
  unitPrice: null,
  unitPriceDecimal: '0.25',
  packageSize: 1,
  tiers: null,
};

/** One purchase of a subscription price, as checkout and billing each see it. */
const purchases = fc.record({
  listedPrice: fc.integer({ min: 0, max: 1_000_000 }),
  quantity: fc.integer({ min: 1, max: 1000 }),
  setupFee: fc.integer({ min: 0, max: 1_000_000 }),
  taxRate: fc.oneof(
    fc.constantFrom(0, 5, 7.7, 8.875, 19, 20, 21, 25, 27),
    fc.integer({ min: 0, max: 100 }),
  ),
  taxInclusive: fc.boolean(),
  discount: fc.option(
    fc.record({
      amountType: fc.constantFrom('percent' as const, 'fixed' as const),
      amount: fc.integer({ min: 0, max: 2_000_000 }),
    }),
  ),
  plan: fc.constantFrom('charged', 'trial', 'metered'),
  currency: fc.constantFrom('USD', 'EUR', 'JPY', 'KWD'),
  usdRate: fc.oneof(
    fc.constant(1),
    fc.integer({ min: 1, max: 50_000_000_000 }).map((u) => u / 1e10),
  ),
});

type Purchase = typeof purchases extends fc.Arbitrary<infer T> ? T : never;

/** What the purchase service computes for the order (and the preview). */
function order(p: Purchase) {
  const unitPrice = unitPriceAtSignup(
    {
      category: 'subscription',
      trialIntervalUnit: p.plan === 'trial' ? 'day' : null,
      trialIntervalQuantity: p.plan === 'trial' ? 14 : null,
      usageAggregation: p.plan === 'metered' ? 'sum' : null,
    },
    false,
    p.listedPrice,
  );
  const subtotal = unitPrice * p.quantity;
  return computeTotals({
    currency: p.currency,
    currencyRate: p.usdRate,
    unitPrice,
    quantity: p.quantity,
    setupFee: p.setupFee,
    discount: p.discount ? discountAmount(p.discount, subtotal) : 0,
    tax: { name: 'VAT', rate: p.taxRate },
    taxInclusive: p.taxInclusive,
  });
}

/** What the subscription purchase extension writes as the initial invoice. */
function initialInvoice(p: Purchase, o: ReturnType<typeof order>) {
  const lines = initialLines(
    {
      productName: 'Plan',
      variantName: 'Default',
      quantity: p.quantity,
      price: o.subtotal / p.quantity,
    },
    o.setupFee,
    p.plan === 'metered' ? meteredTerms : null,
  );
  return {
    lines,
    amounts: invoiceAmounts({
      lines,
      setupFee: o.setupFee,
      discountTotal: o.discountTotal,
      taxRate: String(o.taxRate),
      taxInclusive: o.taxInclusive,
      currency: o.currency,
      usdRate: o.currencyRate,
    }),
  };
}

describe('an order and its initial invoice', () => {
  it('agree to the cent, USD included', () => {
    fc.assert(
      fc.property(purchases, (p) => {
        const o = order(p);
        const { amounts } = initialInvoice(p, o);
        expect(amounts).toEqual({
          subtotal: o.subtotal + o.setupFee,
          discountTotal: o.discountTotal,
          tax: o.tax,
          total: o.total,
          subtotalUsd: o.subtotalUsd + o.setupFeeUsd,
          discountTotalUsd: o.discountTotalUsd,
          taxUsd: o.taxUsd,
          totalUsd: o.totalUsd,
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('agree with what the renewal rule makes of the same lines', () => {
    fc.assert(
      fc.property(purchases, (p) => {
        const o = order(p);
        const { lines } = initialInvoice(p, o);
        // createInvoice's call: no setup-fee split, the discount off the lines.
        const renewal = invoiceAmounts({
          lines,
          discountTotal: o.discountTotal,
          taxRate: String(o.taxRate),
          taxInclusive: o.taxInclusive,
          currency: o.currency,
          usdRate: o.currencyRate,
        });
        expect(renewal.subtotal).toBe(o.subtotal + o.setupFee);
        expect(renewal.discountTotal).toBe(o.discountTotal);
        expect(renewal.tax).toBe(o.tax);
        expect(renewal.total).toBe(o.total);
        expect(renewal.totalUsd).toBe(o.totalUsd);
        expect(renewal.taxUsd).toBe(o.taxUsd);
      }),
      { numRuns: 3000 },
    );
  });

  it('charge only the setup fee at signup for a trial or a metered plan', () => {
    fc.assert(
      fc.property(purchases, (p) => {
        fc.pre(p.plan !== 'charged');
        const o = order(p);
        const { amounts } = initialInvoice(p, o);
        const fee = computeTotals({
          currency: p.currency,
          currencyRate: p.usdRate,
          unitPrice: 0,
          quantity: 1,
          setupFee: p.setupFee,
          discount: 0,
          tax: { name: 'VAT', rate: p.taxRate },
          taxInclusive: p.taxInclusive,
        });
        return (
          o.subtotal === 0 &&
          o.discountTotal === 0 &&
          o.total === fee.total &&
          amounts.total === fee.total
        );
      }),
      { numRuns: 1000 },
    );
  });
});
