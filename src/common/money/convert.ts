import { minorDigits } from './format';
import { cents, decimal, roundDivide } from './rounding';

/**
 * Units of `to` per unit of `from`, from two USD rates (USD per unit of
 * each, as the exchange-rate table keeps them), to `places` decimals,
 * rounded once: EUR per GBP from the USD rates of GBP and EUR.
 */
export function crossRate(
  usdPerFrom: number | string,
  usdPerTo: number | string,
  places = 10,
): string {
  const from = decimal(usdPerFrom);
  const to = decimal(usdPerTo);
  if (from.units <= 0n || to.units <= 0n)
    throw new RangeError('Exchange rates are positive');
  const scaled = roundDivide(
    from.units * to.scale * 10n ** BigInt(places),
    from.scale * to.units,
  );
  const text = scaled.toString().padStart(places + 1, '0');
  return places === 0
    ? text
    : `${text.slice(0, -places)}.${text.slice(-places)}`;
}

/**
 * Converts an amount in minor units of `from` to minor units of `to` at
 * `rate` (units of `to` per unit of `from`), rounded once, halves away
 * from zero (a negative amount converts to the negative of its magnitude's
 * conversion). Both currencies' minor digits count: ¥500 at 0.0058 EUR per
 * yen is 290 cents.
 */
export function convertMinorUnits(
  amount: number,
  from: string,
  to: string,
  rate: number | string,
): number {
  if (from === to) return amount;
  const { units, scale } = decimal(rate);
  return cents(
    roundDivide(
      BigInt(amount) * units * 10n ** BigInt(minorDigits(to)),
      scale * 10n ** BigInt(minorDigits(from)),
    ),
  );
}
