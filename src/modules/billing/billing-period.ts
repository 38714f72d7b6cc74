/** How often a subscription renews: `month` with quantity 3 is quarterly. */
export type IntervalUnit = 'day' | 'week' | 'month' | 'year';

export interface Interval {
  unit: IntervalUnit;
  quantity: number;
}

export const INTERVAL_UNITS: readonly IntervalUnit[] = [
  'day',
  'week',
  'month',
  'year',
];

const DAY_MS = 86_400_000;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** A UTC date in `year`/`monthIndex` on `anchorDay`, clamped to the month's last day. */
function onAnchorDay(
  year: number,
  monthIndex: number,
  anchorDay: number,
  timeOf: Date,
): Date {
  const normalized = new Date(Date.UTC(year, monthIndex, 1));
  const y = normalized.getUTCFullYear();
  const m = normalized.getUTCMonth();
  return new Date(
    Date.UTC(
      y,
      m,
      Math.min(anchorDay, daysInMonth(y, m)),
      timeOf.getUTCHours(),
      timeOf.getUTCMinutes(),
      timeOf.getUTCSeconds(),
      timeOf.getUTCMilliseconds(),
    ),
  );
}

/**
 * The end of the period that starts at `start`. Monthly and yearly periods
 * land on the anchor day (clamped to short months, so an anchor of 31 gives
 * Jan 31 → Feb 28 → Mar 31: the anchor, not the previous end, decides the
 * day); daily and weekly periods are exact multiples of 24 hours.
 */
export function periodEnd(
  start: Date,
  interval: Interval,
  anchorDay: number,
): Date {
  const { unit, quantity } = interval;
  if (unit === 'day') return new Date(start.getTime() + quantity * DAY_MS);
  if (unit === 'week') return new Date(start.getTime() + quantity * 7 * DAY_MS);
  const months = unit === 'year' ? quantity * 12 : quantity;
  return onAnchorDay(
    start.getUTCFullYear(),
    start.getUTCMonth() + months,
    anchorDay,
    start,
  );
}

/** The end of a trial of `interval` starting at `start` (no anchor: trials run their exact length). */
export function trialEnd(start: Date, interval: Interval): Date {
  return periodEnd(start, interval, start.getUTCDate());
}

/**
 * The first instant after `after` that falls on `anchorDay` (clamped to
 * short months), at the time of day of `after`: where a moved billing anchor
 * puts the next renewal.
 */
export function nextAnchorDate(after: Date, anchorDay: number): Date {
  const year = after.getUTCFullYear();
  const month = after.getUTCMonth();
  const thisMonth = onAnchorDay(year, month, anchorDay, after);
  if (thisMonth.getTime() > after.getTime()) return thisMonth;
  return onAnchorDay(year, month + 1, anchorDay, after);
}
