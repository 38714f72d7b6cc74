import type Stripe from 'stripe';
import {
  calculatedTaxAmount,
  calculationParams,
  fromCalculation,
  STRIPE_TAX_CODES,
} from './stripe-tax.mapping';
import type { TaxSale } from './tax-provider';

const SALE: TaxSale = {
  storeId: 1,
  testMode: true,
  amount: 1000,
  currency: 'EUR',
  inclusive: false,
  country: 'DE',
  zip: '10115',
  state: null,
  taxNumber: null,
  taxCode: 'eservice',
  reference: 'variant_7',
};

type Breakdown = Stripe.Tax.Calculation.TaxBreakdown;

/** A calculation in Stripe's shape (as Stripe's published fixture), with this breakdown. */
function calculation(
  breakdown: Partial<Breakdown>[],
  exclusive: number,
  inclusive = 0,
): Stripe.Tax.Calculation {
  return {
    id: 'taxcalc_1Pgc7HB7WZ01zgkW0snEQbxy',
    object: 'tax.calculation',
    amount_total: 1000 + exclusive,
    currency: 'eur',
    tax_amount_exclusive: exclusive,
    tax_amount_inclusive: inclusive,
    tax_breakdown: breakdown as Breakdown[],
  } as unknown as Stripe.Tax.Calculation;
}

const entry = (
  type: string,
  percent: string,
  amount: number,
  reason: Breakdown['taxability_reason'] = 'standard_rated',
): Partial<Breakdown> => ({
  amount,
  inclusive: false,
  taxability_reason: reason,
  taxable_amount: reason === 'standard_rated' ? 1000 : 0,
  tax_rate_details: {
    country: 'DE',
    percentage_decimal: percent,
    state: null,
    tax_type:
      type as Stripe.Tax.Calculation.TaxBreakdown.TaxRateDetails.TaxType,
  } as Stripe.Tax.Calculation.TaxBreakdown.TaxRateDetails,
});

describe('Stripe Tax mapping', () => {
  it('asks for the buyer’s billing address, the line with its Stripe tax code and the store’s tax behaviour', () => {
    expect(calculationParams(SALE)).toEqual({
      currency: 'eur',
      customer_details: {
        address: { country: 'DE', postal_code: '10115' },
        address_source: 'billing',
      },
      line_items: [
        {
          amount: 1000,
          reference: 'variant_7',
          tax_code: 'txcd_10000000',
          tax_behavior: 'exclusive',
        },
      ],
    });
  });

  it.each([
    ['eservice', 'txcd_10000000'],
    ['ebook', 'txcd_10302000'],
    ['saas', 'txcd_10103001'],
  ] as const)('maps tax_code %s to %s', (taxCode, stripeCode) => {
    expect(STRIPE_TAX_CODES[taxCode]).toBe(stripeCode);
    const params = calculationParams({ ...SALE, taxCode, inclusive: true });
    expect(params.line_items[0]).toMatchObject({
      tax_code: stripeCode,
      tax_behavior: 'inclusive',
    });
  });

  it('sends a B2B buyer’s VAT number as eu_vat, or gb_vat in the UK, and a US state', () => {
    expect(
      calculationParams({ ...SALE, taxNumber: 'DE136695976' }).customer_details
        ?.tax_ids,
    ).toEqual([{ type: 'eu_vat', value: 'DE136695976' }]);
    expect(
      calculationParams({ ...SALE, country: 'GB', taxNumber: 'GB980780684' })
        .customer_details?.tax_ids,
    ).toEqual([{ type: 'gb_vat', value: 'GB980780684' }]);
    expect(
      calculationParams({ ...SALE, country: 'US', zip: '75001', state: 'TX' })
        .customer_details?.address,
    ).toEqual({ country: 'US', postal_code: '75001', state: 'TX' });
  });

  it('converts the amount to Stripe’s units (ISK has two decimals at Stripe, none in ISO 4217)', () => {
    const params = calculationParams({ ...SALE, currency: 'ISK', amount: 500 });
    expect(params.line_items[0].amount).toBe(50000);
    expect(params.currency).toBe('isk');
  });

  it('reads a standard-rated sale as its rate and name, keeping the calculation id', () => {
    expect(
      fromCalculation(SALE, calculation([entry('vat', '19.0', 190)], 190)),
    ).toEqual({
      calculationId: 'taxcalc_1Pgc7HB7WZ01zgkW0snEQbxy',
      amount: 1000,
      currency: 'EUR',
      inclusive: false,
      rate: { name: 'VAT', rate: 19 },
      reverseCharge: false,
    });
  });

  it('adds up several jurisdictions (Québec: GST + QST)', () => {
    const result = fromCalculation(
      SALE,
      calculation([entry('gst', '5.0', 50), entry('qst', '9.975', 100)], 150),
    );
    expect(result.rate).toEqual({ name: 'GST + QST', rate: 14.975 });
  });

  it('names US sales tax and keeps decimals', () => {
    const result = fromCalculation(
      SALE,
      calculation([entry('sales_tax', '6.25', 63)], 63),
    );
    expect(result.rate).toEqual({ name: 'Sales tax', rate: 6.25 });
  });

  it('reads reverse charge from taxability_reason: no tax, flagged', () => {
    const result = fromCalculation(
      SALE,
      calculation([entry('vat', '0.0', 0, 'reverse_charge')], 0),
    );
    expect(result).toMatchObject({ rate: null, reverseCharge: true });
  });

  it.each([
    'not_collecting',
    'not_subject_to_tax',
    'product_exempt',
    'zero_rated',
  ] as const)('charges nothing when Stripe says %s', (reason) => {
    const result = fromCalculation(
      SALE,
      calculation([entry('vat', '0.0', 0, reason)], 0),
    );
    expect(result).toMatchObject({ rate: null, reverseCharge: false });
  });

  it('ignores a zero-amount jurisdiction next to a taxed one (Stripe’s fixture: CA sales tax with a product-exempt line)', () => {
    const result = fromCalculation(
      { ...SALE, currency: 'USD', country: 'US' },
      calculation(
        [
          entry('sales_tax', '9.875', 148),
          entry('sales_tax', '0.0', 0, 'product_exempt'),
        ],
        148,
      ),
    );
    expect(result.rate).toEqual({ name: 'Sales tax', rate: 9.875 });
  });

  it('reads inclusive tax amounts in the currency’s minor units', () => {
    expect(
      calculatedTaxAmount(
        calculation([entry('vat', '19.0', 160)], 0, 160),
        'EUR',
      ),
    ).toBe(160);
  });
});
