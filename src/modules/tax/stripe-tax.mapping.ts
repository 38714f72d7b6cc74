import type Stripe from 'stripe';
import { fromStripeAmount, toStripeAmount } from '../payment/stripe-amounts';
import type { CalculatedTax, TaxCode, TaxSale } from './tax-provider';

/**
 * Stripe's product tax codes for Zest's `tax_code`
 * (https://docs.stripe.com/tax/tax-codes): general electronically supplied
 * services, digital books (downloaded, permanent rights), and SaaS for
 * business use.
 */
export const STRIPE_TAX_CODES: Record<TaxCode, string> = {
  eservice: 'txcd_10000000',
  ebook: 'txcd_10302000',
  saas: 'txcd_10103001',
};

/** What invoices call Stripe's tax types. */
const TAX_TYPE_NAMES: Record<string, string> = {
  vat: 'VAT',
  gst: 'GST',
  hst: 'HST',
  pst: 'PST',
  qst: 'QST',
  rst: 'RST',
  jct: 'JCT',
  igst: 'IGST',
  sales_tax: 'Sales tax',
  amusement_tax: 'Amusement tax',
  communications_tax: 'Communications tax',
  lease_tax: 'Lease tax',
};

/** The calculation's parameters for one sale (one line: the variant). */
export function calculationParams(
  sale: TaxSale,
): Stripe.Tax.CalculationCreateParams {
  const address: Stripe.Tax.CalculationCreateParams.CustomerDetails.Address = {
    country: sale.country,
  };
  if (sale.zip) address.postal_code = sale.zip;
  if (sale.state) address.state = sale.state;
  const customer: Stripe.Tax.CalculationCreateParams.CustomerDetails = {
    address,
    address_source: 'billing',
  };
  if (sale.taxNumber)
    customer.tax_ids = [
      {
        type: sale.country === 'GB' ? 'gb_vat' : 'eu_vat',
        value: sale.taxNumber,
      },
    ];
  return {
    currency: sale.currency.toLowerCase(),
    customer_details: customer,
    line_items: [
      {
        amount: toStripeAmount(sale.amount, sale.currency),
        reference: sale.reference,
        tax_code: STRIPE_TAX_CODES[sale.taxCode],
        tax_behavior: sale.inclusive ? 'inclusive' : 'exclusive',
      },
    ],
  };
}

/** A percent with at most four decimals, as orders keep it. */
function percent(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/**
 * Zest's tax for a calculation: the rate is the sum of the breakdown's
 * taxed jurisdictions (Canada's GST + QST is one 14.975 % rate, named
 * "GST + QST"); no tax when Stripe collects none (not registered, exempt,
 * zero rated, reverse charge). The order's amounts come from this rate
 * through the money module, as for the built-in provider.
 */
export function fromCalculation(
  sale: TaxSale,
  calculation: Stripe.Tax.Calculation,
): CalculatedTax {
  const breakdown = calculation.tax_breakdown ?? [];
  const reverseCharge = breakdown.some(
    (entry) => entry.taxability_reason === 'reverse_charge',
  );
  const taxed = breakdown.filter(
    (entry) =>
      entry.amount > 0 &&
      Number(entry.tax_rate_details?.percentage_decimal ?? 0) > 0,
  );
  const taxAmount =
    calculation.tax_amount_exclusive + calculation.tax_amount_inclusive;
  let rate: CalculatedTax['rate'] = null;
  if (taxed.length > 0 && taxAmount > 0 && !reverseCharge) {
    const names = [
      ...new Set(
        taxed.map(
          (entry) =>
            TAX_TYPE_NAMES[entry.tax_rate_details?.tax_type ?? ''] ?? 'Tax',
        ),
      ),
    ];
    rate = {
      name: names.join(' + '),
      rate: percent(
        taxed.reduce(
          (sum, entry) =>
            sum + Number(entry.tax_rate_details!.percentage_decimal),
          0,
        ),
      ),
    };
  }
  return {
    calculationId: calculation.id ?? null,
    amount: sale.amount,
    currency: sale.currency,
    inclusive: sale.inclusive,
    rate,
    reverseCharge,
  };
}

/** Stripe's tax amount of a calculation in the currency's minor units (for checks). */
export function calculatedTaxAmount(
  calculation: Stripe.Tax.Calculation,
  currency: string,
): number {
  return fromStripeAmount(
    calculation.tax_amount_exclusive + calculation.tax_amount_inclusive,
    currency,
  );
}
