import salesTax from 'sales-tax';
import {
  COVERED_COUNTRIES,
  DIGITAL_RULES_DATE,
  EBOOK_RATES,
  US_DIGITAL_TAX_STATES,
} from './digital-rules';
import { ProvidedRate, TaxContext, TaxProvider } from './tax-provider';

/**
 * The version of the `sales-tax` package whose table this code was written
 * against (pinned in package.json; `builtin-tax.provider.spec.ts` fails when
 * the installed one differs, so an upgrade is a reviewed change).
 */
export const SALES_TAX_VERSION = '2.23.0';

/** The rate table's version, kept on every order it priced. */
export const BUILTIN_RATE_SOURCE = `sales-tax@${SALES_TAX_VERSION}+zest-digital-${DIGITAL_RULES_DATE}`;

/** Names of the library's tax types, as invoices print them. */
const TYPE_NAMES: Record<string, string> = {
  vat: 'VAT',
  gst: 'GST',
  hst: 'HST',
  'gst+pst': 'GST + PST',
  'gst+qst': 'GST + QST',
  'gst+hst': 'HST',
};

/** Manitoba calls its provincial sales tax RST. */
const REGION_NAMES: Record<string, string> = { MB: 'GST + RST' };

/** A fraction (0.09975) as a percent with at most four decimals (9.975). */
function percent(fraction: number): number {
  return Math.round(fraction * 1_000_000) / 10_000;
}

/**
 * Rates from the `sales-tax` package's offline table (every country's
 * standard VAT/GST rate with its scheduled changes, Canadian provinces'
 * GST/HST/PST/QST), and the digital-goods rules that table does not hold
 * (`digital-rules.ts`): which US states tax digital goods and at what base
 * rate, and e-book reduced rates. No network is used.
 */
export class BuiltinTaxProvider implements TaxProvider {
  readonly name = 'builtin';
  readonly source = BUILTIN_RATE_SOURCE;

  async rateFor(context: TaxContext): Promise<ProvidedRate | null> {
    const { country, region, taxCode } = context;
    if (!COVERED_COUNTRIES.has(country)) return null;
    if (country === 'US') {
      const state = region ? US_DIGITAL_TAX_STATES[region] : undefined;
      return state
        ? { name: 'Sales tax', rate: state, source: BUILTIN_RATE_SOURCE }
        : null;
    }
    // Canada without a known province: the federal GST alone.
    const found = await salesTax.getSalesTax(
      country,
      country === 'CA' ? region : null,
    );
    if (!(found.rate > 0)) return null;
    const reduced = taxCode === 'ebook' ? EBOOK_RATES[country] : undefined;
    const rate = reduced ?? percent(found.rate);
    const name =
      (region && country === 'CA' ? REGION_NAMES[region] : undefined) ??
      TYPE_NAMES[found.type] ??
      'Tax';
    return { name, rate, source: BUILTIN_RATE_SOURCE };
  }
}
