import { computeTotals, PricingInput } from './pricing';

const base: PricingInput = {
  currency: 'USD',
  currencyRate: 1,
  unitPrice: 1000,
  quantity: 2,
  setupFee: 0,
  discount: 0,
  tax: null,
  taxInclusive: false,
};

describe('computeTotals', () => {
  it('multiplies quantity and applies no tax without a rate', () => {
    const totals = computeTotals(base);
    expect(totals).toMatchObject({
      subtotal: 2000,
      tax: 0,
      total: 2000,
      totalUsd: 2000,
      taxName: null,
      taxRate: 0,
    });
  });

  it('adds exclusive tax after the discount and the setup fee', () => {
    const totals = computeTotals({
      ...base,
      discount: 500,
      setupFee: 100,
      tax: { name: 'VAT', rate: 20 },
    });
    expect(totals).toMatchObject({
      subtotal: 2000,
      discountTotal: 500,
      setupFee: 100,
      tax: 320,
      total: 1920,
      taxName: 'VAT',
      taxRate: 20,
    });
  });

  it('carves inclusive tax out of the total', () => {
    const totals = computeTotals({
      ...base,
      quantity: 1,
      unitPrice: 1200,
      tax: { name: 'VAT', rate: 20 },
      taxInclusive: true,
    });
    expect(totals).toMatchObject({ tax: 200, total: 1200 });
  });

  it('never discounts below zero and converts to USD at the rate', () => {
    const totals = computeTotals({
      ...base,
      currency: 'EUR',
      currencyRate: 1.1,
      discount: 99999,
    });
    expect(totals).toMatchObject({ discountTotal: 2000, total: 0 });
    expect(
      computeTotals({ ...base, currency: 'EUR', currencyRate: 1.1 }),
    ).toMatchObject({ subtotalUsd: 2200, totalUsd: 2200 });
  });
});
