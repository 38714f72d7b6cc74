import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUILTIN_RATE_SOURCE,
  BuiltinTaxProvider,
  SALES_TAX_VERSION,
} from './builtin-tax.provider';
import { TaxCode } from './tax-provider';

const provider = new BuiltinTaxProvider();

async function rate(
  country: string,
  region: string | null = null,
  taxCode: TaxCode = 'eservice',
) {
  const found = await provider.rateFor({
    storeCountry: 'US',
    country,
    region,
    taxCode,
  });
  return found ? [found.name, found.rate] : null;
}

/**
 * Consumer (B2C) rates for e-services, each from the authority that
 * publishes it; the built-in provider must give each one.
 */
const STANDARD: [string, string | null, [string, number] | null, string][] = [
  // EU: European Commission, "VAT rates applied in the Member States of the EU", 2025.
  ['AT', null, ['VAT', 20], 'EC VAT rates 2025: Austria'],
  ['BE', null, ['VAT', 21], 'EC VAT rates 2025: Belgium'],
  ['BG', null, ['VAT', 20], 'EC VAT rates 2025: Bulgaria'],
  ['HR', null, ['VAT', 25], 'EC VAT rates 2025: Croatia'],
  ['CY', null, ['VAT', 19], 'EC VAT rates 2025: Cyprus'],
  ['CZ', null, ['VAT', 21], 'EC VAT rates 2025: Czechia'],
  ['DK', null, ['VAT', 25], 'EC VAT rates 2025: Denmark'],
  [
    'EE',
    null,
    ['VAT', 24],
    'Estonian Tax and Customs Board: 24 % from 1 July 2025',
  ],
  ['FI', null, ['VAT', 25.5], 'Vero Skatt: 25.5 % from 1 September 2024'],
  ['FR', null, ['VAT', 20], 'EC VAT rates 2025: France'],
  ['DE', null, ['VAT', 19], 'Bundesfinanzministerium, UStG § 12(1)'],
  ['GR', null, ['VAT', 24], 'EC VAT rates 2025: Greece'],
  ['HU', null, ['VAT', 27], 'EC VAT rates 2025: Hungary'],
  ['IE', null, ['VAT', 23], 'Revenue.ie: standard rate 23 %'],
  ['IT', null, ['VAT', 22], 'EC VAT rates 2025: Italy'],
  ['LV', null, ['VAT', 21], 'EC VAT rates 2025: Latvia'],
  ['LT', null, ['VAT', 21], 'EC VAT rates 2025: Lithuania'],
  ['LU', null, ['VAT', 17], 'EC VAT rates 2025: Luxembourg'],
  ['MT', null, ['VAT', 18], 'EC VAT rates 2025: Malta'],
  ['NL', null, ['VAT', 21], 'Belastingdienst: 21 %'],
  ['PL', null, ['VAT', 23], 'EC VAT rates 2025: Poland'],
  ['PT', null, ['VAT', 23], 'EC VAT rates 2025: Portugal (mainland)'],
  ['RO', null, ['VAT', 21], 'ANAF: 21 % from 1 August 2025 (Law 141/2025)'],
  ['SK', null, ['VAT', 23], 'Finančná správa: 23 % from 1 January 2025'],
  ['SI', null, ['VAT', 22], 'EC VAT rates 2025: Slovenia'],
  ['ES', null, ['VAT', 21], 'EC VAT rates 2025: Spain'],
  ['SE', null, ['VAT', 25], 'Skatteverket: 25 %'],
  // Outside the EU.
  ['GB', null, ['VAT', 20], 'HMRC, VAT Notice 700: standard rate 20 %'],
  ['NO', null, ['VAT', 25], 'Skatteetaten: VOEC standard rate 25 %'],
  ['CH', null, ['VAT', 8.1], 'ESTV: 8.1 % from 1 January 2024'],
  ['AU', null, ['GST', 10], 'Australian Taxation Office: GST 10 %'],
  ['NZ', null, ['GST', 15], 'Inland Revenue NZ: GST 15 %'],
  // Canada: Canada Revenue Agency, "GST/HST rates" and provincial PST/QST.
  ['CA', 'ON', ['HST', 13], 'CRA: HST Ontario 13 %'],
  ['CA', 'NS', ['HST', 14], 'CRA: HST Nova Scotia 14 % from 1 April 2025'],
  ['CA', 'NB', ['HST', 15], 'CRA: HST New Brunswick 15 %'],
  ['CA', 'NL', ['HST', 15], 'CRA: HST Newfoundland and Labrador 15 %'],
  ['CA', 'PE', ['HST', 15], 'CRA: HST Prince Edward Island 15 %'],
  ['CA', 'QC', ['GST + QST', 14.975], 'Revenu Québec: QST 9.975 % + GST 5 %'],
  ['CA', 'BC', ['GST + PST', 12], 'BC Ministry of Finance: PST 7 % + GST 5 %'],
  ['CA', 'MB', ['GST + RST', 12], 'Manitoba Finance: RST 7 % + GST 5 %'],
  ['CA', 'SK', ['GST + PST', 11], 'Saskatchewan: PST 6 % + GST 5 %'],
  ['CA', 'AB', ['GST', 5], 'CRA: GST only in Alberta'],
  ['CA', 'YT', ['GST', 5], 'CRA: GST only in Yukon'],
  ['CA', null, ['GST', 5], 'CRA: GST, province unknown'],
  // US: state base rates for states that tax digital goods (state revenue departments).
  [
    'US',
    'TX',
    ['Sales tax', 6.25],
    'Texas Comptroller: 6.25 %, digital goods taxable',
  ],
  [
    'US',
    'WA',
    ['Sales tax', 6.5],
    'Washington DOR: 6.5 %, RCW 82.04.192 digital products',
  ],
  [
    'US',
    'PA',
    ['Sales tax', 6],
    'Pennsylvania DOR: 6 %, digital downloads taxable',
  ],
  ['US', 'OH', ['Sales tax', 5.75], 'Ohio Department of Taxation: 5.75 %'],
  [
    'US',
    'LA',
    ['Sales tax', 5],
    'Louisiana DOR: 5 % state rate from 1 January 2025 (Act 2024-11)',
  ],
  [
    'US',
    'MN',
    ['Sales tax', 6.875],
    'Minnesota DOR: 6.875 %, specified digital products',
  ],
  [
    'US',
    'CA',
    null,
    'CDTFA Regulation 1502: electronically delivered software not taxed',
  ],
  [
    'US',
    'FL',
    null,
    'Florida DOR: electronically delivered digital goods not taxed',
  ],
  [
    'US',
    'NY',
    null,
    'NY DTF TB-ST-128: digital products (e-books, music) not taxed',
  ],
  ['US', 'OR', null, 'Oregon: no sales tax'],
  ['US', null, null, 'state unknown: no estimate'],
  // Countries outside the table.
  ['AE', null, null, 'not covered: no tax'],
];

describe('BuiltinTaxProvider', () => {
  it.each(STANDARD)('%s %s → %j (%s)', async (country, region, expected) => {
    expect(await rate(country, region)).toEqual(expected);
  });

  /** E-books (tax code `ebook`): the reduced rates of `digital-rules.ts`. */
  it.each([
    ['DE', ['VAT', 7], 'UStG § 12(2) Nr. 14: e-books 7 %'],
    ['FR', ['VAT', 5.5], 'CGI art. 278-0 bis: livres numériques 5.5 %'],
    ['IE', ['VAT', 9], 'Revenue.ie: e-books 9 % since 2020'],
    ['IT', ['VAT', 4], 'DPR 633/72 Tab. A II n. 18: e-books 4 %'],
    ['ES', ['VAT', 4], 'Ley 37/1992 art. 91.Dos: e-books 4 %'],
    ['NL', ['VAT', 9], 'Belastingdienst: e-books 9 %'],
    ['SE', ['VAT', 6], 'Skatteverket: e-books 6 %'],
    ['CH', ['VAT', 2.6], 'ESTV: books 2.6 % from 2024'],
    ['GB', ['VAT', 0], 'HMRC VAT Notice 701/10: e-publications zero-rated'],
    ['DK', ['VAT', 25], 'SKAT: no reduced rate'],
    ['AU', ['GST', 10], 'ATO: no reduced rate for e-books'],
  ] as [string, [string, number], string][])(
    'e-book in %s → %j (%s)',
    async (country, expected) => {
      expect(await rate(country, null, 'ebook')).toEqual(expected);
    },
  );

  it('gives SaaS the standard rate', async () => {
    expect(await rate('DE', null, 'saas')).toEqual(['VAT', 19]);
    expect(await rate('US', 'TX', 'saas')).toEqual(['Sales tax', 6.25]);
  });

  it('names the table it read, pinned to the installed package', async () => {
    const found = await provider.rateFor({
      storeCountry: 'FR',
      country: 'DE',
      region: null,
      taxCode: 'eservice',
    });
    expect(found?.source).toBe(BUILTIN_RATE_SOURCE);
    const installed = JSON.parse(
      readFileSync(
        join(process.cwd(), 'node_modules/sales-tax/package.json'),
        'utf8',
      ),
    ) as { version: string };
    expect(installed.version).toBe(SALES_TAX_VERSION);
  });
});
