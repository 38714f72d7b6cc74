/**
 * Money is integer minor units (cents) plus an ISO 4217 code. Formatting goes
 * through Intl.NumberFormat, which knows each currency's symbol and how many
 * minor digits it has (JPY has none, so 500 "cents" of JPY are ¥500).
 */
interface CurrencyFormat {
  format: Intl.NumberFormat;
  minorDigits: number;
}

const formats = new Map<string, CurrencyFormat>();

/** Built once per currency: `resolvedOptions()` is too slow for every amount. */
function currencyFormat(currency: string): CurrencyFormat {
  let known = formats.get(currency);
  if (!known) {
    const format = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
    });
    known = {
      format,
      minorDigits: format.resolvedOptions().maximumFractionDigits ?? 2,
    };
    formats.set(currency, known);
  }
  return known;
}

/** Minor digits of a currency: 2 for USD, 0 for JPY, 3 for KWD. */
export function minorDigits(currency: string): number {
  return currencyFormat(currency).minorDigits;
}

/** `1999, 'USD'` → `$19.99`. */
export function formatMoney(minorUnits: number, currency: string): string {
  const { format, minorDigits } = currencyFormat(currency);
  return format.format(minorUnits / 10 ** minorDigits);
}

/** `1250, 'USD'` → `"12.50"`: an amount as a buyer types it, without a symbol. */
export function toMajorUnits(minorUnits: number, currency: string): string {
  const digits = minorDigits(currency);
  return (minorUnits / 10 ** digits).toFixed(digits);
}

/**
 * `"12.5", 'USD'` → `1250`. Digits with an optional decimal point and at most
 * the currency's minor digits after it; anything else (signs, exponents,
 * thousands separators, "12.505") is null rather than guessed at.
 */
export function parseMajorUnits(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const match = /^(?=\.?\d)(\d{0,12})(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (match[2] ?? '').length > digits) return null;
  const fraction = (match[2] ?? '').padEnd(digits, '0');
  return Number(match[1] || '0') * 10 ** digits + Number(fraction || '0');
}
