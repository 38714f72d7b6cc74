/** What a product is, for tax: the price's `tax_code`. */
export type TaxCode = 'eservice' | 'ebook' | 'saas';

/** Who buys what from whom: everything a provider may base its answer on. */
export interface TaxContext {
  /** The store's country (ISO 3166-1 alpha-2): the seller's establishment. */
  storeCountry: string;
  /** The buyer's billing country. */
  country: string;
  /** The buyer's state or province (US, Canada), as resolved by `buyerRegion`. */
  region: string | null;
  taxCode: TaxCode;
}

/** A provider's rate for a consumer sale (B2C), or null where none applies. */
export interface ProvidedRate {
  /** What the invoice calls it: "VAT", "GST", "HST", "GST + QST", "Sales tax". */
  name: string;
  /** Percent, at most four decimals (14.975). */
  rate: number;
  /** Where the rate comes from, kept on the order: the table and its version. */
  source: string;
}

/**
 * Where rates come from. The built-in provider answers from tables shipped
 * with the code (no network); another provider (a tax service) implements
 * the same method. Reverse charge, registrations and TAX_RATES overrides are
 * the engine's (`TaxEngine`), the same whatever the provider.
 */
export interface TaxProvider {
  readonly name: string;
  /** The version of the provider's rates, kept on the orders it priced. */
  readonly source: string;
  rateFor(context: TaxContext): Promise<ProvidedRate | null>;
}

export const TAX_PROVIDER = Symbol('TAX_PROVIDER');

/** Who computes a store's tax: the built-in tables, or Stripe Tax. */
export const TAX_PROVIDER_NAMES = ['builtin', 'stripe'] as const;
export type TaxProviderName = (typeof TAX_PROVIDER_NAMES)[number];

/**
 * A sale as a tax service prices it (Stripe Tax's calculation): the amount
 * and who buys, where the built-in tables need only the country.
 */
export interface TaxSale {
  storeId: number;
  testMode: boolean;
  /** The taxable amount in the currency's minor units (after the discount, with the setup fee), with tax when `inclusive`. */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
  inclusive: boolean;
  country: string;
  zip: string | null;
  state: string | null;
  /** An EU/UK VAT number that passed its check (B2B); null for a consumer. */
  taxNumber: string | null;
  taxCode: TaxCode;
  /** The line's reference at the service (the variant). */
  reference: string;
}

/** A tax service's answer for a sale, kept for the order. */
export interface CalculatedTax {
  /** The service's calculation, kept on the order as evidence (`taxcalc_…`). */
  calculationId: string | null;
  /** The sale it priced: reused only for the same amount, currency and pricing. */
  amount: number;
  currency: string;
  inclusive: boolean;
  /** Null: no tax (not registered there, exempt, zero rated, reverse charge). */
  rate: { name: string; rate: number } | null;
  /** The service applied the reverse charge (a valid VAT number from another country). */
  reverseCharge: boolean;
}
