/** The shape of the generated `shipped-rates.ts`. */
export interface ShippedRateTable {
  /** Where the figures come from (package and version, or publisher). */
  source: string;
  /** The day the figures are for, YYYY-MM-DD. */
  date: string;
  /** Units of each currency per one US dollar. */
  unitsPerUsd: Record<string, number>;
  /** Currencies Zest accepts that the source had no rate for. */
  missing: string[];
}
