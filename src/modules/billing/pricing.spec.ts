import { amountFor, PriceTerms } from './pricing';

const base: PriceTerms = {
  scheme: 'standard',
  unitPrice: 1000,
  unitPriceDecimal: null,
  packageSize: 1,
  tiers: null,
};

describe('amountFor', () => {
  it('multiplies standard prices, including fractional cents exactly', () => {
    expect(amountFor(base, 3)).toBe(3000);
    expect(amountFor(base, 0)).toBe(0);
    expect(
      amountFor({ ...base, unitPrice: null, unitPriceDecimal: '0.25' }, 1001),
    ).toBe(250);
    expect(
      amountFor({ ...base, unitPrice: null, unitPriceDecimal: '0.1' }, 3),
    ).toBe(0);
    expect(
      amountFor({ ...base, unitPrice: null, unitPriceDecimal: '0.5' }, 3),
    ).toBe(2);
  });

  it('sells whole packages', () => {
    const terms = {
      ...base,
      scheme: 'package' as const,
      packageSize: 10,
      unitPrice: 500,
    };
    expect(amountFor(terms, 10)).toBe(500);
    expect(amountFor(terms, 11)).toBe(1000);
  });

  const tiers = [
    { last_unit: 10, unit_price: 100, fixed_fee: 0 },
    { last_unit: 20, unit_price: 80, fixed_fee: 50 },
    { last_unit: 'inf' as const, unit_price: 50, fixed_fee: 0 },
  ];

  it('prices graduated tiers unit by unit', () => {
    const terms = { ...base, scheme: 'graduated' as const, tiers };
    expect(amountFor(terms, 5)).toBe(500);
    expect(amountFor(terms, 15)).toBe(1000 + 400 + 50);
    expect(amountFor(terms, 25)).toBe(1000 + 800 + 50 + 250);
  });

  it('prices all units at the volume tier reached', () => {
    const terms = { ...base, scheme: 'volume' as const, tiers };
    expect(amountFor(terms, 5)).toBe(500);
    expect(amountFor(terms, 15)).toBe(15 * 80 + 50);
    expect(amountFor(terms, 25)).toBe(25 * 50);
  });
});
