import { convertMinorUnits, decimal } from '../../common/money';
import type { TaxReportSourceRow } from './tax-report.repository';

/** How a currency's figures became euros in a report. */
export interface EurConversion {
  currency: string;
  /** Euros per unit of `currency`, 10 decimal places ("1" for EUR itself). */
  eurPerUnit: string;
  /** The day of the rates used; null for EUR and for CURRENCY_RATES overrides. */
  rateDate: string | null;
  /**
   * `identity` (EUR), `ecb` (the ECB reference rates of the period's last
   * day, or the next publication: the OSS rule), `latest` (the period is
   * not over or that day was not fetched: the newest rates known, so the
   * EUR figures are provisional).
   */
  source: 'identity' | 'ecb' | 'latest';
}

/** One line of a report: a country (and US state or Canadian province), a rate, a tax name, reverse charge or not, a currency. */
export interface TaxReportRow {
  country: string | null;
  region: string | null;
  taxName: string | null;
  /** Percent. */
  taxRate: number;
  reverseCharge: boolean;
  currency: string;
  /** Charged orders and invoices made in the period. */
  sales: number;
  /** Refunds settled in the period (of sales of any period). */
  refunds: number;
  /** Minor units of `currency`: what the sales charged before tax, and their tax. */
  taxableAmount: number;
  tax: number;
  /** What the refunds gave back before tax, and the tax they gave back. */
  refundedTaxableAmount: number;
  refundedTax: number;
  /** Sales less refunds: what to declare for the period. */
  netTaxableAmount: number;
  netTax: number;
  /** The net figures in euro cents (null when no rate to EUR is known). */
  netTaxableAmountEur: number | null;
  netTaxEur: number | null;
}

type Counted = Omit<
  TaxReportRow,
  'netTaxableAmount' | 'netTax' | 'netTaxableAmountEur' | 'netTaxEur'
>;

const keyOf = (row: Counted) =>
  JSON.stringify([
    row.country,
    row.region,
    row.taxName,
    row.taxRate,
    row.reverseCharge,
    row.currency,
  ]);

/** A rate as the number it is ("19.0000" and "19" are one rate). */
function percent(rate: string): number {
  const { units, scale } = decimal(rate);
  return Number(units) / Number(scale);
}

const compareText = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

/**
 * The rows of a report from its sources' groups (orders, subscription
 * invoices): groups with the same country, region, tax name, rate, reverse
 * charge and currency add up; the net is sales less refunds; each row is
 * converted to EUR at its currency's rate, each figure rounded once. Ordered
 * by country (unknown last), region, reverse charge last, rate (highest
 * first), tax name and currency.
 */
export function reportRows(
  sources: TaxReportSourceRow[][],
  conversions: Map<string, EurConversion>,
): TaxReportRow[] {
  const merged = new Map<string, Counted>();
  for (const row of sources.flat()) {
    const counted: Counted = {
      country: row.country?.trim() || null,
      region: row.region,
      taxName: row.taxName,
      taxRate: percent(row.taxRate),
      reverseCharge: row.reverseCharge,
      currency: row.currency.trim(),
      sales: row.sales,
      refunds: row.refunds,
      taxableAmount: row.taxableAmount,
      tax: row.tax,
      refundedTaxableAmount: row.refundedTaxableAmount,
      refundedTax: row.refundedTax,
    };
    const key = keyOf(counted);
    const seen = merged.get(key);
    if (!seen) {
      merged.set(key, counted);
      continue;
    }
    seen.sales += counted.sales;
    seen.refunds += counted.refunds;
    seen.taxableAmount += counted.taxableAmount;
    seen.tax += counted.tax;
    seen.refundedTaxableAmount += counted.refundedTaxableAmount;
    seen.refundedTax += counted.refundedTax;
  }
  return [...merged.values()]
    .sort(
      (a, b) =>
        compareText(a.country, b.country) ||
        compareText(a.region, b.region) ||
        Number(a.reverseCharge) - Number(b.reverseCharge) ||
        b.taxRate - a.taxRate ||
        compareText(a.taxName, b.taxName) ||
        compareText(a.currency, b.currency),
    )
    .map((row) => {
      const netTaxableAmount = row.taxableAmount - row.refundedTaxableAmount;
      const netTax = row.tax - row.refundedTax;
      const conversion = conversions.get(row.currency);
      const toEur = (amount: number) =>
        conversion
          ? convertMinorUnits(
              amount,
              row.currency,
              'EUR',
              conversion.eurPerUnit,
            )
          : null;
      return {
        ...row,
        netTaxableAmount,
        netTax,
        netTaxableAmountEur: toEur(netTaxableAmount),
        netTaxEur: toEur(netTax),
      };
    });
}
