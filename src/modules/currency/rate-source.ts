/** One day's rates from a source, in USD per one unit of each currency. */
export interface RateDay {
  /** The day the rates are for, YYYY-MM-DD. */
  date: string;
  /** Who published them, as kept beside each stored rate. */
  source: string;
  usdPerUnit: Record<string, number>;
}

/**
 * Where the refresh job gets rates from. The ECB's daily reference rates are
 * the one implementation today; another publisher (or a paid feed) is
 * another class behind the same token.
 */
export interface RateSource {
  readonly name: string;
  /** Throws RateSourceUnavailable or MalformedRates; never returns a partial day. */
  fetchLatest(): Promise<RateDay>;
}

export const RATE_SOURCE = Symbol('RATE_SOURCE');

/** The source could not be reached, answered an error, or was too slow. */
export class RateSourceUnavailable extends Error {}

/** The source answered something that is not a complete, sane rate document. */
export class MalformedRates extends Error {}
