import { checkVAT, countries } from 'jsvat';
import { EU_COUNTRIES } from './digital-rules';

/**
 * What the check of a buyer's tax number found, kept on the order:
 * `valid` (the number's format and check digits are right for the billing
 * country, by jsvat, offline; with TAX_VAT_VALIDATION=online an EU number
 * is also registered in VIES), `invalid` (they are not, or VIES says it is
 * not registered), `valid_offline` (online mode, VIES did not answer: the
 * offline check passed and stands in for it), `not_checked` (a number from
 * a country outside the EU and the UK, kept as given).
 */
export type TaxNumberCheck =
  'valid' | 'invalid' | 'valid_offline' | 'not_checked';

/** Where a VAT number can make a sale a reverse-charge one. */
export function takesVatNumbers(country: string): boolean {
  return EU_COUNTRIES.has(country) || country === 'GB';
}

/** A number as printed: upper case, no spaces, dots or dashes. */
export function normalizeTaxNumber(value: string): string {
  return value.toUpperCase().replace(/[\s.-]/g, '');
}

/**
 * The offline check of an EU or UK VAT number for a buyer in `country`:
 * its prefix must be that country's (EL for Greece, GB for the UK)
 * and its digits pass the country's rules and checksum.
 */
export function checkVatNumber(
  country: string,
  number: string,
): TaxNumberCheck {
  if (!takesVatNumbers(country)) return 'not_checked';
  const result = checkVAT(normalizeTaxNumber(number), countries);
  return result.isValid && result.country?.isoCode.short === country
    ? 'valid'
    : 'invalid';
}
