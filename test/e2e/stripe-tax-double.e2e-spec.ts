import Stripe from 'stripe';
import { StripeDouble } from '../support/stripe-double/stripe-double';

const SECRET_KEY = 'sk_test_taxdouble0123456789abcdef';

/**
 * The double's Stripe Tax routes, driven by the official `stripe` package
 * as Zest drives them: calculations from its small rate table, reverse
 * charge, transactions and reversals, Stripe's parameter checks and errors.
 */
describe('Stripe API double: Stripe Tax', () => {
  let double: StripeDouble;
  let stripe: Stripe;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    stripe = new Stripe(SECRET_KEY, double.clientOptions());
    double.taxSettings(SECRET_KEY, 'FR', ['EU', 'CA-QC']);
  });
  afterAll(() => double.stop());

  const calculate = (
    country: string,
    extra: Partial<Stripe.Tax.CalculationCreateParams.CustomerDetails> = {},
    line: Partial<Stripe.Tax.CalculationCreateParams.LineItem> = {},
  ) =>
    stripe.tax.calculations.create({
      currency: 'eur',
      customer_details: {
        address: { country, postal_code: '10115' },
        address_source: 'billing',
        ...extra,
      },
      line_items: [
        {
          amount: 1000,
          reference: 'variant_1',
          tax_code: 'txcd_10000000',
          ...line,
        },
      ],
    });

  it('calculates VAT in Stripe’s shape, exclusive and inclusive, with e-book rates', async () => {
    const exclusive = await calculate('DE');
    expect(exclusive).toMatchObject({
      object: 'tax.calculation',
      amount_total: 1190,
      currency: 'eur',
      tax_amount_exclusive: 190,
      tax_amount_inclusive: 0,
      livemode: false,
      customer_details: {
        address: { country: 'DE', postal_code: '10115' },
        address_source: 'billing',
        tax_ids: [],
      },
      tax_breakdown: [
        {
          amount: 190,
          inclusive: false,
          taxability_reason: 'standard_rated',
          taxable_amount: 1000,
          tax_rate_details: {
            country: 'DE',
            percentage_decimal: '19.0',
            tax_type: 'vat',
          },
        },
      ],
    });
    expect(exclusive.id).toMatch(/^taxcalc_/);
    const inclusive = await calculate(
      'DE',
      {},
      { tax_behavior: 'inclusive', tax_code: 'txcd_10302000' },
    );
    // €10.00 including 7 %: net round(1000 / 1.07) = 935, tax 65.
    expect(inclusive).toMatchObject({
      amount_total: 1000,
      tax_amount_inclusive: 65,
      tax_amount_exclusive: 0,
    });
  });

  it('reverse-charges a valid VAT number from another country than the head office, and taxes one from the same country', async () => {
    const business = await calculate('DE', {
      tax_ids: [{ type: 'eu_vat', value: 'DE136695976' }],
    });
    expect(business.tax_amount_exclusive).toBe(0);
    expect(business.tax_breakdown![0].taxability_reason).toBe('reverse_charge');
    const french = await calculate('FR', {
      tax_ids: [{ type: 'eu_vat', value: 'FR40303265045' }],
    });
    expect(french.tax_amount_exclusive).toBe(200);
  });

  it('adds Québec’s GST and QST, and collects nothing where the account is not registered', async () => {
    const quebec = await calculate('CA', {
      address: { country: 'CA', state: 'QC', postal_code: 'H2X 1Y4' },
    });
    expect(
      quebec.tax_breakdown!.map((b) => [
        b.tax_rate_details!.tax_type,
        b.amount,
      ]),
    ).toEqual([
      ['gst', 50],
      ['qst', 100],
    ]);
    const british = await calculate('GB');
    expect(british.tax_amount_exclusive).toBe(0);
    expect(british.tax_breakdown![0].taxability_reason).toBe('not_collecting');
  });

  it('refuses what Stripe refuses: unknown and missing parameters, a US address without a postcode', async () => {
    await expect(
      stripe.tax.calculations.create({
        currency: 'eur',
        line_items: [{ amount: 1000, reference: 'a' }],
        customer_details: { address: { country: 'DE' } },
        nonsense: 1,
      } as Stripe.Tax.CalculationCreateParams),
    ).rejects.toMatchObject({ code: 'parameter_unknown', param: 'nonsense' });
    await expect(
      stripe.tax.calculations.create({
        currency: 'eur',
        line_items: [{ amount: 1000, reference: 'a' }],
      }),
    ).rejects.toMatchObject({
      code: 'parameter_missing',
      param: 'customer_details',
    });
    await expect(
      calculate('US', { address: { country: 'US', state: 'TX' } }),
    ).rejects.toMatchObject({ code: 'customer_tax_location_invalid' });
  });

  it('records a transaction from a calculation once per reference, and reverses it in part and no further', async () => {
    const calculation = await calculate('DE');
    const transaction = await stripe.tax.transactions.createFromCalculation({
      calculation: calculation.id!,
      reference: 'order-1',
    });
    expect(transaction).toMatchObject({
      object: 'tax.transaction',
      type: 'transaction',
      reference: 'order-1',
      currency: 'eur',
      reversal: null,
      line_items: {
        data: [{ amount: 1000, amount_tax: 190, type: 'transaction' }],
      },
    });
    await expect(
      stripe.tax.transactions.createFromCalculation({
        calculation: calculation.id!,
        reference: 'order-1',
      }),
    ).rejects.toMatchObject({ param: 'reference' });
    await expect(
      stripe.tax.transactions.createFromCalculation({
        calculation: 'taxcalc_missing',
        reference: 'order-2',
      }),
    ).rejects.toMatchObject({ code: 'resource_missing' });
    const half = await stripe.tax.transactions.createReversal({
      mode: 'partial',
      original_transaction: transaction.id,
      reference: 'order-1-refund-1',
      flat_amount: -595,
    });
    expect(half).toMatchObject({
      type: 'reversal',
      reversal: { original_transaction: transaction.id },
      line_items: { data: [{ amount: -500, amount_tax: -95 }] },
    });
    await expect(
      stripe.tax.transactions.createReversal({
        mode: 'partial',
        original_transaction: transaction.id,
        reference: 'order-1-refund-2',
        flat_amount: -600,
      }),
    ).rejects.toMatchObject({ param: 'flat_amount' });
    await expect(
      stripe.tax.transactions.createReversal({
        mode: 'full',
        original_transaction: transaction.id,
        reference: 'order-1-refund-3',
      }),
    ).rejects.toMatchObject({ param: 'mode' });
  });

  it('plays an outage and a request that never answers', async () => {
    double.failRequests(1);
    await expect(calculate('DE')).rejects.toMatchObject({
      type: 'StripeAPIError',
    });
    double.hangRequests(1);
    await expect(
      stripe.tax.calculations.create(
        {
          currency: 'eur',
          customer_details: { address: { country: 'DE' } },
          line_items: [{ amount: 1000, reference: 'a' }],
        },
        { timeout: 500 },
      ),
    ).rejects.toMatchObject({ type: 'StripeConnectionError' });
    expect((await calculate('DE')).tax_amount_exclusive).toBe(190);
  });
});
