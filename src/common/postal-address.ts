import addressFormatter from '@fragaria/address-formatter';

/** A postal address as a store or a buyer gives it; every part but the country may be absent. */
export interface PostalAddress {
  /** Street and number, one or more lines ("Unter den Linden 77"). */
  lines?: string[];
  city?: string | null;
  /** State, province or prefecture, as used in the country (CA, ON, NSW). */
  state?: string | null;
  postcode?: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], {
  type: 'region',
  fallback: 'none',
});

/** The English name of an ISO 3166-1 alpha-2 code; the text itself otherwise. */
export function countryName(country: string): string {
  const code = country.toUpperCase();
  return (/^[A-Z]{2}$/.test(code) && COUNTRY_NAMES.of(code)) || country;
}

/**
 * The address as printed for its country ("10117 Berlin" in Germany,
 * "London" over "SW1A 1AA" in the UK, "San Francisco, CA 94103" in the US),
 * by the OpenCage address templates (`@fragaria/address-formatter`, shipped
 * with the package: no network). The first street line is the template's
 * road; further street lines follow it. The country's English name is the
 * last line when `withCountry` (the default), as on a cross-border invoice.
 */
export function formatPostalAddress(
  address: PostalAddress,
  withCountry = true,
): string[] {
  const street = (address.lines ?? [])
    .map((line) => line.trim())
    .filter(Boolean);
  const country = address.country.toUpperCase();
  const named = countryName(country);
  const empty =
    street.length === 0 &&
    ![address.city, address.state, address.postcode].some((part) =>
      part?.trim(),
    );
  if (empty) return withCountry && country ? [named] : [];
  const formatted = addressFormatter.format(
    {
      road: street[0],
      city: address.city?.trim() || undefined,
      state: address.state?.trim() || undefined,
      postcode: address.postcode?.trim() || undefined,
      countryCode: /^[A-Z]{2}$/.test(country) ? country : undefined,
    },
    { output: 'array', abbreviate: false },
  ) as string[];
  const lines = formatted.map((line) => line.trim()).filter(Boolean);
  const at = street[0] ? lines.indexOf(street[0]) : -1;
  if (street.length > 1)
    lines.splice(at === -1 ? 0 : at + 1, 0, ...street.slice(1));
  if (withCountry && country) lines.push(named);
  return lines;
}
