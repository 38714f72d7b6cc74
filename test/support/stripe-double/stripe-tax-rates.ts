/** The Stripe double's Stripe Tax data: a small rate table for tests, not Stripe's. */

/** One tax of a jurisdiction: Stripe's `tax_type` and percent. */
export interface Component {
  type: string;
  percent: string;
  /** The US state or Canadian province. */
  state: string | null;
}

/**
 * The double's rates for digital services (`txcd_10000000` and SaaS), by
 * country or country-state, and e-books (`txcd_10302000`) where reduced.
 * A small table for tests, not Stripe's data.
 */
export const RATES: Record<string, Component[]> = {
  DE: [{ type: 'vat', percent: '19.0', state: null }],
  FR: [{ type: 'vat', percent: '20.0', state: null }],
  NL: [{ type: 'vat', percent: '21.0', state: null }],
  IE: [{ type: 'vat', percent: '23.0', state: null }],
  GB: [{ type: 'vat', percent: '20.0', state: null }],
  AU: [{ type: 'gst', percent: '10.0', state: null }],
  'US-TX': [{ type: 'sales_tax', percent: '6.25', state: 'TX' }],
  'US-WA': [{ type: 'sales_tax', percent: '6.5', state: 'WA' }],
  'US-NY': [{ type: 'sales_tax', percent: '4.0', state: 'NY' }],
  'CA-ON': [{ type: 'hst', percent: '13.0', state: 'ON' }],
  'CA-QC': [
    { type: 'gst', percent: '5.0', state: 'QC' },
    { type: 'qst', percent: '9.975', state: 'QC' },
  ],
};
export const EBOOK_RATES: Record<string, string> = { DE: '7.0', FR: '5.5' };
export const EU = new Set([
  'DE',
  'FR',
  'NL',
  'IE',
  'AT',
  'BE',
  'ES',
  'IT',
  'PL',
]);
/** US ZIP code prefixes to states, for addresses without a state. */
export const ZIP_STATES: [RegExp, string][] = [
  [/^7[5-9]/, 'TX'],
  [/^9[0-6]/, 'CA'],
  [/^98|^99[0-4]/, 'WA'],
  [/^1[0-4]/, 'NY'],
];

/** Top-level parameters of the tax routes (as the `stripe` package's types allow). */
export const TAX_PARAMS: Record<string, string[]> = {
  'POST /v1/tax/calculations': [
    'currency',
    'line_items',
    'customer',
    'customer_details',
    'ship_from_details',
    'shipping_cost',
    'tax_date',
    'expand',
  ],
  'POST /v1/tax/transactions/create_from_calculation': [
    'calculation',
    'reference',
    'metadata',
    'posted_at',
    'expand',
  ],
  'POST /v1/tax/transactions/create_reversal': [
    'mode',
    'original_transaction',
    'reference',
    'flat_amount',
    'line_items',
    'shipping_cost',
    'metadata',
    'expand',
  ],
};

/** A VAT number the double takes as valid: the country's prefix (EL for Greece) and 8 to 12 digits. */
export function validVat(country: string, value: string): boolean {
  const prefix = country === 'GR' ? 'EL' : country;
  return new RegExp(`^${prefix}[0-9A-Z]{8,12}$`).test(value);
}
