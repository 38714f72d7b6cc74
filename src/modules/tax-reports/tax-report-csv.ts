import type { TaxReportRow, EurConversion } from './tax-report-rows';

/** The CSV's columns, named as the JSON rows' attributes. */
export const TAX_REPORT_CSV_COLUMNS = [
  'period',
  'country',
  'region',
  'tax_name',
  'tax_rate',
  'reverse_charge',
  'currency',
  'sales',
  'refunds',
  'taxable_amount',
  'tax',
  'refunded_taxable_amount',
  'refunded_tax',
  'net_taxable_amount',
  'net_tax',
  'eur_per_unit',
  'eur_rate_date',
  'eur_rate_source',
  'net_taxable_amount_eur',
  'net_tax_eur',
] as const;

/**
 * A text cell, RFC 4180 quoted when it holds a comma, a quote or a line
 * break. Text that a spreadsheet would run as a formula (starting with =,
 * +, -, @, tab or carriage return) is prefixed with an apostrophe (OWASP's
 * CSV injection advice); numbers are written as they are.
 */
function textCell(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const numberCell = (value: number | null) =>
  value === null ? '' : String(value);

/**
 * The report as CSV: a header row, then one line per row, CRLF line ends,
 * UTF-8. Amounts in minor units as in the JSON document.
 */
export function taxReportCsv(
  period: string,
  rows: TaxReportRow[],
  conversions: Map<string, EurConversion>,
): string {
  const lines = [TAX_REPORT_CSV_COLUMNS.join(',')];
  for (const row of rows) {
    const conversion = conversions.get(row.currency) ?? null;
    lines.push(
      [
        textCell(period),
        textCell(row.country),
        textCell(row.region),
        textCell(row.taxName),
        numberCell(row.taxRate),
        row.reverseCharge ? 'true' : 'false',
        textCell(row.currency),
        numberCell(row.sales),
        numberCell(row.refunds),
        numberCell(row.taxableAmount),
        numberCell(row.tax),
        numberCell(row.refundedTaxableAmount),
        numberCell(row.refundedTax),
        numberCell(row.netTaxableAmount),
        numberCell(row.netTax),
        textCell(conversion?.eurPerUnit ?? null),
        textCell(conversion?.rateDate ?? null),
        textCell(conversion?.source ?? null),
        numberCell(row.netTaxableAmountEur),
        numberCell(row.netTaxEur),
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
