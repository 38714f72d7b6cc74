/**
 * Money is integer minor units (cents) plus an ISO 4217 code. Formatting goes
 * through Intl.NumberFormat, which knows each currency's symbol and how many
 * minor digits it has (JPY has none, so 500 "cents" of JPY are ¥500).
 */
const formatters = new Map<string, Intl.NumberFormat>();

function formatter(currency: string): Intl.NumberFormat {
  let format = formatters.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    formatters.set(currency, format);
  }
  return format;
}

/** Minor digits of a currency: 2 for USD, 0 for JPY, 3 for KWD. */
export function minorDigits(currency: string): number {
  return formatter(currency).resolvedOptions().maximumFractionDigits ?? 2;
}

/** `1999, 'USD'` → `$19.99`. */
export function formatMoney(minorUnits: number, currency: string): string {
  return formatter(currency).format(minorUnits / 10 ** minorDigits(currency));
}

/**
 * Converts an amount to USD cents with a rate of USD per unit of `currency`.
 * Both sides are in minor units, so the currencies' minor digits matter.
 */
export function toUsdCents(
  minorUnits: number,
  currency: string,
  rate: number,
): number {
  const units = minorUnits / 10 ** minorDigits(currency);
  return Math.round(units * rate * 100);
}

/** A percentage of an amount, rounded half away from zero to whole cents. */
export function percentOf(amount: number, percent: number): number {
  return Math.round((amount * percent) / 100);
}
