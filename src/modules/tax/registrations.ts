import { isCountryCode } from '../../common/country-codes';
import { EU_COUNTRIES } from './digital-rules';
import { TaxErrors } from './tax.errors';

/**
 * A store's tax registrations as written (`["DE", "EU", "gb"]`): upper-cased
 * ISO 3166-1 alpha-2 codes and `EU` (the One-Stop Shop: all 27 member
 * states), without repeats; anything else is a 422.
 */
export function checkRegistrations(entries: string[]): string[] {
  const codes = entries.map((entry) =>
    typeof entry === 'string' ? entry.trim().toUpperCase() : '',
  );
  if (codes.length > 300 || !codes.every((c) => c === 'EU' || isCountryCode(c)))
    throw TaxErrors.invalidRegistrations();
  return [...new Set(codes)];
}

/** Whether a store with these registrations charges tax to a buyer in `country`. */
export function registeredFor(
  registrations: string[] | null,
  country: string,
): boolean {
  if (registrations === null) return true;
  return registrations.some(
    (entry) =>
      entry === country || (entry === 'EU' && EU_COUNTRIES.has(country)),
  );
}
