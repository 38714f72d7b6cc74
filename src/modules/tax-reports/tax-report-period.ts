import { TaxReportErrors } from './tax-report.errors';

/**
 * A filing period: a calendar quarter, month or year, in UTC. `from` is its
 * first instant and `to` the first instant after it (records are in the
 * period when `from <= t < to`); `lastDay` is the day whose ECB reference
 * rates OSS returns convert with.
 */
export interface TaxPeriod {
  /** As normalised: `2026-Q3`, `2026-07`, `2026`. */
  label: string;
  kind: 'quarter' | 'month' | 'year';
  from: Date;
  to: Date;
  /** YYYY-MM-DD, the period's last day. */
  lastDay: string;
}

const PERIOD = /^(\d{4})(?:-(?:[Qq]([1-4])|(0[1-9]|1[0-2])))?$/;

/**
 * `2026-Q3` (also `2026-q3`), `2026-07` or `2026`; years 2000 to 9999.
 * Anything else is a 422 `tax_report_period_invalid`.
 */
export function parseTaxPeriod(text: string): TaxPeriod {
  const match = PERIOD.exec(text.trim());
  const year = match ? Number(match[1]) : NaN;
  if (!match || year < 2000) throw TaxReportErrors.periodInvalid(text);
  const [, , quarter, month] = match;
  if (quarter !== undefined) {
    const first = (Number(quarter) - 1) * 3;
    return period(`${year}-Q${quarter}`, 'quarter', year, first, 3);
  }
  if (month !== undefined)
    return period(`${year}-${month}`, 'month', year, Number(month) - 1, 1);
  return period(String(year), 'year', year, 0, 12);
}

function period(
  label: string,
  kind: TaxPeriod['kind'],
  year: number,
  firstMonth: number,
  months: number,
): TaxPeriod {
  const from = new Date(Date.UTC(year, firstMonth, 1));
  const to = new Date(Date.UTC(year, firstMonth + months, 1));
  const lastDay = new Date(to.getTime() - 86_400_000)
    .toISOString()
    .slice(0, 10);
  return { label, kind, from, to, lastDay };
}
