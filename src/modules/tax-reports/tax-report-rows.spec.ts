import { EurConversion, reportRows } from './tax-report-rows';
import { taxReportCsv } from './tax-report-csv';
import type { TaxReportSourceRow } from './tax-report.repository';

const group = (fields: Partial<TaxReportSourceRow>): TaxReportSourceRow => ({
  country: 'DE',
  region: null,
  taxName: 'VAT',
  taxRate: '19.0000',
  reverseCharge: false,
  currency: 'EUR',
  sales: 0,
  taxableAmount: 0,
  tax: 0,
  refunds: 0,
  refundedTaxableAmount: 0,
  refundedTax: 0,
  ...fields,
});

const conversions = new Map<string, EurConversion>([
  [
    'EUR',
    { currency: 'EUR', eurPerUnit: '1', rateDate: null, source: 'identity' },
  ],
  [
    'USD',
    {
      currency: 'USD',
      eurPerUnit: '0.8547008547',
      rateDate: '2026-09-30',
      source: 'ecb',
    },
  ],
  [
    'JPY',
    {
      currency: 'JPY',
      eurPerUnit: '0.0058',
      rateDate: '2026-09-30',
      source: 'ecb',
    },
  ],
]);

describe('reportRows', () => {
  it('adds up the sources’ groups of one country, rate, name, reverse charge and currency, net of refunds', () => {
    const orders = [
      group({
        sales: 2,
        taxableAmount: 2000,
        tax: 380,
        refunds: 1,
        refundedTaxableAmount: 500,
        refundedTax: 95,
      }),
      group({
        country: 'FR',
        taxRate: '20',
        taxableAmount: 1000,
        tax: 200,
        sales: 1,
      }),
    ];
    const invoices = [
      // The same rate written as PostgreSQL numeric text and as an integer: one row.
      group({ taxRate: '19', sales: 1, taxableAmount: 1000, tax: 190 }),
    ];
    expect(reportRows([orders, invoices], conversions)).toEqual([
      {
        country: 'DE',
        region: null,
        taxName: 'VAT',
        taxRate: 19,
        reverseCharge: false,
        currency: 'EUR',
        sales: 3,
        refunds: 1,
        taxableAmount: 3000,
        tax: 570,
        refundedTaxableAmount: 500,
        refundedTax: 95,
        netTaxableAmount: 2500,
        netTax: 475,
        netTaxableAmountEur: 2500,
        netTaxEur: 475,
      },
      {
        country: 'FR',
        region: null,
        taxName: 'VAT',
        taxRate: 20,
        reverseCharge: false,
        currency: 'EUR',
        sales: 1,
        refunds: 0,
        taxableAmount: 1000,
        tax: 200,
        refundedTaxableAmount: 0,
        refundedTax: 0,
        netTaxableAmount: 1000,
        netTax: 200,
        netTaxableAmountEur: 1000,
        netTaxEur: 200,
      },
    ]);
  });

  it('keeps reverse charges, regions, names and currencies apart, in a stable order', () => {
    const rows = reportRows(
      [
        [
          group({
            country: null,
            taxName: null,
            taxRate: '0',
            sales: 1,
            taxableAmount: 100,
          }),
          group({
            country: 'US',
            region: 'TX',
            taxName: 'Sales tax',
            taxRate: '6.25',
            currency: 'USD',
            sales: 1,
            taxableAmount: 1000,
            tax: 63,
          }),
          group({
            country: 'US',
            region: 'CA',
            taxName: null,
            taxRate: '0',
            currency: 'USD',
            sales: 1,
            taxableAmount: 1000,
          }),
          group({
            taxName: null,
            taxRate: '0',
            reverseCharge: true,
            sales: 1,
            taxableAmount: 1000,
          }),
          group({ taxRate: '7', sales: 1, taxableAmount: 1000, tax: 70 }),
          group({ currency: 'JPY', sales: 1, taxableAmount: 50000, tax: 9500 }),
        ],
      ],
      conversions,
    );
    expect(
      rows.map((r) => [
        r.country,
        r.region,
        r.taxRate,
        r.reverseCharge,
        r.currency,
      ]),
    ).toEqual([
      ['DE', null, 19, false, 'JPY'],
      ['DE', null, 7, false, 'EUR'],
      ['DE', null, 0, true, 'EUR'],
      ['US', 'CA', 0, false, 'USD'],
      ['US', 'TX', 6.25, false, 'USD'],
      [null, null, 0, false, 'EUR'],
    ]);
    const tx = rows.find((r) => r.region === 'TX')!;
    // $0.63 at 0.8547008547 is 53.846… cents; $10.00 is 854.70… cents.
    expect([tx.netTaxEur, tx.netTaxableAmountEur]).toEqual([54, 855]);
    const yen = rows.find((r) => r.currency === 'JPY')!;
    expect([yen.netTaxEur, yen.netTaxableAmountEur]).toEqual([5510, 29000]);
  });

  it('nets a period with only refunds to negative figures, converted with their sign', () => {
    const [row] = reportRows(
      [
        [
          group({
            currency: 'USD',
            refunds: 1,
            refundedTaxableAmount: 1000,
            refundedTax: 63,
          }),
        ],
      ],
      conversions,
    );
    expect(row).toMatchObject({
      sales: 0,
      netTaxableAmount: -1000,
      netTax: -63,
      netTaxableAmountEur: -855,
      netTaxEur: -54,
    });
  });

  it('leaves the EUR figures null for a currency without a rate', () => {
    const [row] = reportRows(
      [[group({ currency: 'XAF', sales: 1, tax: 100 })]],
      conversions,
    );
    expect(row).toMatchObject({
      netTax: 100,
      netTaxEur: null,
      netTaxableAmountEur: null,
    });
  });
});

describe('taxReportCsv', () => {
  it('writes a header and one CRLF line per row, quoting and defusing text cells', () => {
    const rows = reportRows(
      [
        [
          group({ sales: 1, taxableAmount: 1000, tax: 190 }),
          group({
            country: 'CA',
            region: 'QC',
            taxName: 'GST + QST, "combined"',
            taxRate: '14.975',
            currency: 'USD',
            sales: 1,
            taxableAmount: 1000,
            tax: 150,
          }),
          group({
            country: 'XX',
            taxName: '=HYPERLINK("http://evil")',
            taxRate: '1',
            currency: 'XAF',
            refunds: 1,
            refundedTaxableAmount: 100,
            refundedTax: 1,
          }),
        ],
      ],
      conversions,
    );
    const csv = taxReportCsv('2026-Q3', rows, conversions);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.split('\r\n')).toEqual([
      'period,country,region,tax_name,tax_rate,reverse_charge,currency,sales,refunds,taxable_amount,tax,refunded_taxable_amount,refunded_tax,net_taxable_amount,net_tax,eur_per_unit,eur_rate_date,eur_rate_source,net_taxable_amount_eur,net_tax_eur',
      '2026-Q3,CA,QC,"GST + QST, ""combined""",14.975,false,USD,1,0,1000,150,0,0,1000,150,0.8547008547,2026-09-30,ecb,855,128',
      '2026-Q3,DE,,VAT,19,false,EUR,1,0,1000,190,0,0,1000,190,1,,identity,1000,190',
      `2026-Q3,XX,,"'=HYPERLINK(""http://evil"")",1,false,XAF,0,1,0,0,100,1,-100,-1,,,,,`,
      '',
    ]);
  });
});
