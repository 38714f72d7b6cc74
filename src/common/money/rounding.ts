/**
 * Exact arithmetic for money. Amounts are integer cents (safe integers);
 * rates (tax percent, USD per unit) are decimals that a double cannot hold
 * exactly (1.1, 7.7, 0.0066), so every rule multiplies and divides them as
 * BigInt fractions and rounds once, at the end.
 *
 * The one rounding rule: to the nearest cent, halves away from zero. For
 * the non-negative amounts a sale has this is the "round half up" of
 * `Math.round`; for a credit it rounds the same magnitude as the equal
 * charge, so a credit and its charge cancel to the cent.
 */

/** A decimal as an exact fraction `units / scale` (scale a power of ten). */
export interface Decimal {
  units: bigint;
  scale: bigint;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * A rate as the decimal it was written as: `"20.0000"` (a numeric column),
 * `1.085`, `1e-7`. A number is read through its shortest round-trip form,
 * which is the decimal the configuration or the database gave.
 */
export function decimal(value: number | string): Decimal {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL_TEXT.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === ''))
    throw new Error(`Not a decimal number: "${text}"`);
  const [, sign, whole, fraction = '', exponentText] = match;
  const exponent = Number(exponentText ?? 0) - fraction.length;
  let units = BigInt((whole || '0') + fraction);
  if (sign === '-') units = -units;
  return exponent >= 0
    ? { units: units * 10n ** BigInt(exponent), scale: 1n }
    : { units, scale: 10n ** BigInt(-exponent) };
}

/** `numerator / denominator` to the nearest integer, halves away from zero. */
export function roundDivide(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('Division by zero');
  if (denominator < 0n) {
    numerator = -numerator;
    denominator = -denominator;
  }
  const magnitude = numerator < 0n ? -numerator : numerator;
  const rounded = (2n * magnitude + denominator) / (2n * denominator);
  return numerator < 0n ? -rounded : rounded;
}

/** Back to a JavaScript number: every amount here fits a safe integer. */
export function cents(value: bigint): number {
  const result = Number(value);
  if (!Number.isSafeInteger(result))
    throw new RangeError(`${value} cents is out of range`);
  return result;
}

/**
 * `amount × part / whole`, rounded: a share of an amount by a ratio of
 * integers (seconds of a period, months of a year).
 */
export function share(amount: number, part: number, whole: number): number {
  return cents(roundDivide(BigInt(amount) * BigInt(part), BigInt(whole)));
}

/**
 * `quantity` units at a price in decimal cents (`"0.25"`, a usage-based
 * price), rounded once for the whole quantity.
 */
export function timesDecimalCents(quantity: number, price: string): number {
  if (!/^\d+(\.\d+)?$/.test(price.trim()))
    throw new Error(`Invalid decimal price "${price}"`);
  const { units, scale } = decimal(price);
  return cents(roundDivide(BigInt(quantity) * units, scale));
}

/** A percentage of an amount (`percent` may be a decimal such as 12.5). */
export function percentOf(amount: number, percent: number | string): number {
  const rate = decimal(percent);
  return cents(roundDivide(BigInt(amount) * rate.units, 100n * rate.scale));
}
