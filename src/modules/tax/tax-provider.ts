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
