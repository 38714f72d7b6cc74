import {
  amountLine,
  linesTotal,
  planName,
  priceLine,
  withCarriedProration,
} from './invoice-lines';
import { PriceTerms } from './pricing';

const standard = (unitPrice: number): PriceTerms => ({
  scheme: 'standard',
  unitPrice,
  unitPriceDecimal: null,
  packageSize: 1,
  tiers: null,
});

describe('invoice lines', () => {
  it('names a plan by product, adding the variant unless it is the default', () => {
    expect(planName('Pro', 'Default')).toBe('Pro');
    expect(planName('Pro', 'Yearly')).toBe('Pro - Yearly');
  });

  it('prices a flat line as quantity × unit price', () => {
    expect(priceLine('Pro', 3, standard(1000))).toEqual({
      description: 'Pro',
      quantity: 3,
      unit_price: 1000,
      total: 3000,
    });
  });

  it('leaves out the unit price where there is no single one', () => {
    const fractional = priceLine('Calls - usage', 7, {
      ...standard(0),
      unitPriceDecimal: '0.25',
    });
    expect(fractional).toMatchObject({ unit_price: null, total: 2 });
    const packaged = priceLine('Seats', 11, {
      ...standard(500),
      scheme: 'package',
      packageSize: 10,
    });
    expect(packaged).toEqual({
      description: 'Seats (in packages of 10)',
      quantity: 11,
      unit_price: null,
      total: 1000,
    });
    const graduated = priceLine('Seats', 3, {
      ...standard(0),
      scheme: 'graduated',
      tiers: [
        { last_unit: 2, unit_price: 100 },
        { last_unit: 'inf', unit_price: 50 },
      ],
    });
    expect(graduated).toMatchObject({
      description: 'Seats (graduated pricing)',
      unit_price: null,
      total: 250,
    });
  });

  it('adds carried prorations so the lines sum to the invoiced subtotal', () => {
    const charges = [priceLine('Pro', 2, standard(1000))];
    expect(withCarriedProration(charges, 0)).toBe(charges);
    const owed = withCarriedProration(charges, 516);
    expect(owed.at(-1)).toEqual(
      amountLine('Prorated changes in the previous period', 516),
    );
    expect(linesTotal(owed)).toBe(2516);
    const credit = withCarriedProration(charges, -700);
    expect(linesTotal(credit)).toBe(1300);
    // A credit larger than the charges brings the invoice to zero; the rest carries over.
    const large = withCarriedProration(charges, -5000);
    expect(large.at(-1)).toEqual(
      amountLine('Credit for prorated changes', -2000),
    );
    expect(linesTotal(large)).toBe(0);
    expect(withCarriedProration([], -300)).toEqual([]);
  });
});
