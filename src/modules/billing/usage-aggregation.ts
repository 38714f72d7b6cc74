/** A price's `usage_aggregation`. */
export type UsageAggregation =
  'sum' | 'last_during_period' | 'last_ever' | 'max';

export type UsageAction = 'increment' | 'set';

/**
 * Usage of one subscription item in one billing period, folded record by
 * record: `increment` adds to the running total, `set` replaces it (DESIGN
 * section 6). `peak` is the highest running total the period reached.
 */
export interface PeriodUsage {
  total: number;
  peak: number;
}

export const NO_USAGE: PeriodUsage = { total: 0, peak: 0 };

/** The repository applies this same fold in one atomic upsert; this is its specification. */
export function applyUsage(
  usage: PeriodUsage,
  action: UsageAction,
  quantity: number,
): PeriodUsage {
  const total = action === 'set' ? quantity : usage.total + quantity;
  return { total, peak: Math.max(usage.peak, total) };
}

/**
 * The billable quantity of a period. `sum` and `last_during_period` both read
 * the running total (increments sum up, a `set` is the latest reported value);
 * `max` reads the peak; `last_ever` falls back to the last reported value of
 * an earlier period when nothing was reported in this one.
 */
export function billableUsage(
  aggregation: UsageAggregation,
  period: PeriodUsage | null,
  previousTotal: number | null,
): number {
  switch (aggregation) {
    case 'sum':
    case 'last_during_period':
      return period?.total ?? 0;
    case 'max':
      return period?.peak ?? 0;
    case 'last_ever':
      return period ? period.total : (previousTotal ?? 0);
  }
}

export function isUsageAggregation(value: unknown): value is UsageAggregation {
  return (
    value === 'sum' ||
    value === 'last_during_period' ||
    value === 'last_ever' ||
    value === 'max'
  );
}
