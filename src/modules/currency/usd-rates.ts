/**
 * Zest prices in the store's currency and reports in USD with a rate of
 * "USD per one unit of the currency" (`currency_rate`). Orders keep it as
 * numeric(20, 10), so every rate is rounded to 10 decimal places before use:
 * the rate an order freezes is exactly the one its `_usd` figures came from.
 */
export const RATE_DECIMALS = 10;

export function roundRate(rate: number): number {
  return Number(rate.toFixed(RATE_DECIMALS));
}

/** From a table quoted the other way round (units of the currency per USD). */
export function usdPerUnit(unitsPerUsd: number): number {
  return roundRate(1 / unitsPerUsd);
}

/**
 * From euro-based reference rates (units of each currency per one euro, as
 * the ECB quotes them): USD per unit of X is (USD per EUR) / (X per EUR), and
 * USD per EUR is the USD quote itself. Null without a USD quote.
 */
export function usdRatesFromEuroRates(
  unitsPerEur: Record<string, number>,
): Record<string, number> | null {
  const usdPerEur = unitsPerEur.USD;
  if (usdPerEur === undefined) return null;
  const rates: Record<string, number> = { EUR: roundRate(usdPerEur) };
  for (const [currency, perEur] of Object.entries(unitsPerEur)) {
    if (currency !== 'USD') rates[currency] = roundRate(usdPerEur / perEur);
  }
  return rates;
}
