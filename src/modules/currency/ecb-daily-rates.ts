import { MalformedRates, RateDay } from './rate-source';
import { usdRatesFromEuroRates } from './usd-rates';

export const ECB_SOURCE = 'European Central Bank euro reference rates';

/** `<Cube …>` and `<Cube …/>` with their attributes. */
const CUBE = /<Cube\b([^>]*?)\/?>/g;
const ATTRIBUTE = /([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const DECIMAL = /^\d{1,12}(\.\d{1,12})?$/;

function attributes(source: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of source.matchAll(ATTRIBUTE))
    found[match[1]] = match[2] ?? match[3];
  return found;
}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return (
    !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
  );
}

/**
 * Reads the ECB's `eurofxref-daily.xml`: one `<Cube time="YYYY-MM-DD">` with
 * a `<Cube currency="USD" rate="1.0921"/>` per currency, each rate in units
 * of that currency per euro. The document is refused whole, never used in
 * part, when it is cut short, has no or several days, lacks USD (needed to
 * convert), or has a malformed, repeated or non-positive quote.
 */
export function parseEcbDailyRates(xml: string): RateDay {
  if (!/<\/(?:[\w-]+:)?Envelope>\s*$/.test(xml))
    throw new MalformedRates('The document is not a complete ECB envelope.');
  let date: string | null = null;
  const unitsPerEur: Record<string, number> = {};
  for (const [, raw] of xml.matchAll(CUBE)) {
    const cube = attributes(raw);
    if (cube.time !== undefined) {
      if (date !== null)
        throw new MalformedRates('The document holds more than one day.');
      if (!isCalendarDate(cube.time))
        throw new MalformedRates(`Bad date: ${cube.time}`);
      date = cube.time;
    }
    if (cube.currency === undefined && cube.rate === undefined) continue;
    const { currency, rate } = cube;
    if (currency === undefined || !/^[A-Z]{3}$/.test(currency))
      throw new MalformedRates(`Bad currency code: ${currency}`);
    if (currency === 'EUR' || Object.hasOwn(unitsPerEur, currency))
      throw new MalformedRates(`Unexpected quote for ${currency}`);
    const value = rate !== undefined && DECIMAL.test(rate) ? Number(rate) : 0;
    if (!(value > 0))
      throw new MalformedRates(`Bad rate for ${currency}: ${rate}`);
    unitsPerEur[currency] = value;
  }
  if (date === null) throw new MalformedRates('The document names no day.');
  const usdPerUnit = usdRatesFromEuroRates(unitsPerEur);
  if (!usdPerUnit) throw new MalformedRates('The document has no USD rate.');
  for (const [currency, rate] of Object.entries(usdPerUnit))
    if (!(rate > 0))
      throw new MalformedRates(`The rate for ${currency} rounds to zero.`);
  return { date, source: ECB_SOURCE, usdPerUnit };
}
