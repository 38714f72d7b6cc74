import { minorDigits } from './format';
import { cents, decimal, roundDivide } from './rounding';

/**
 * Converts an amount to USD cents with a rate of USD per unit of `currency`
 * (the record's frozen `currency_rate`), rounded once. Both sides are in
 * minor units, so the currencies' minor digits matter: 500 JPY at 0.0066
 * is 330 cents.
 */
export function toUsdCents(
  minorUnits: number,
  currency: string,
  rate: number | string,
): number {
  const { units, scale } = decimal(rate);
  const divisor = scale * 10n ** BigInt(minorDigits(currency));
  return cents(roundDivide(BigInt(minorUnits) * units * 100n, divisor));
}
