import {
  jsonApiResponse,
  ref,
  responseRef,
} from '../../http/openapi/json-api-schemas';
import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import {
  array,
  bool,
  exact,
  int,
  nullable,
  num,
  oneOf,
  str,
  ts,
  url,
} from '../../http/openapi/schema';
import { TAX_REPORT_CSV_COLUMNS } from './tax-report-csv';

const row = exact({
  country: nullable(str('The buyer’s billing country (ISO 3166-1 alpha-2).')),
  region: nullable(
    str('The US state or Canadian province, where the rate depends on it.'),
  ),
  tax_name: nullable(str()),
  tax_rate: num('Percent.'),
  reverse_charge: bool(
    'B2B sales reverse-charged (no tax; the buyer accounts for it).',
  ),
  currency: str('The sales’ currency (the store’s when they were made).'),
  sales: int(
    'Charged orders and renewal or plan-change invoices made in the period.',
  ),
  refunds: int('Refunds settled in the period, of sales of any period.'),
  taxable_amount: int('Minor units: the sales before tax.'),
  tax: int('Minor units: the tax the sales took.'),
  refunded_taxable_amount: int(
    'Minor units: what the refunds gave back before tax.',
  ),
  refunded_tax: int('Minor units: the tax the refunds gave back.'),
  net_taxable_amount: int('taxable_amount − refunded_taxable_amount.'),
  net_tax: int('tax − refunded_tax: what to declare.'),
  net_taxable_amount_eur: nullable(
    int('Euro cents, at the currency’s eur_conversions rate.'),
  ),
  net_tax_eur: nullable(
    int('Euro cents, at the currency’s eur_conversions rate.'),
  ),
});

const attributes = exact({
  store_id: int(),
  period: str('2026-Q3, 2026-07 or 2026, as given (normalised).'),
  starts_at: ts('The first instant of the period (UTC).'),
  ends_at: ts('The first instant after the period (UTC).'),
  currency: str('The store’s currency.'),
  test_mode: bool(),
  rows: array(row),
  eur_conversions: array(
    exact({
      currency: str(),
      eur_per_unit: str('Euros per unit, 10 decimal places.'),
      rate_date: nullable(str('YYYY-MM-DD')),
      source: oneOf('identity', 'ecb', 'latest'),
    }),
  ),
  generated_at: ts(),
});

const document = exact({
  jsonapi: ref('JsonApiVersion'),
  links: exact({ self: url() }),
  data: exact({
    type: { type: 'string', enum: ['tax-reports'] },
    id: str('{store_id}-{period}'),
    attributes,
    links: exact({ self: url() }),
  }),
});

export const taxReportOpenApi: OpenApiContribution = {
  operations: {
    'GET /v1/tax-reports': {
      summary: 'Tax collected in a period, per country and rate (extension)',
      description:
        'Read only. The tax a store’s sales took in a period: charged orders and renewal or plan-change subscription invoices made in it, less the refunds settled in it (a refund counts in the period it was made, whatever the sale’s), grouped by the buyer’s country and region, tax name, rate, reverse charge and currency, in minor units of that currency and in euro cents. Euros use the ECB’s reference rates of the period’s last day (or the next publication), as OSS returns do, once the period is over and that day was fetched; until then the newest known rates, marked `latest`. One `tax-reports` resource whose `rows` are the lines. With `Accept: text/csv` the same rows as CSV (header row, RFC 4180 quoting, UTF-8, CRLF).',
      tags: ['tax-reports'],
      parameters: [
        {
          name: 'filter[store_id]',
          in: 'query',
          required: true,
          schema: { type: 'string', pattern: '^\\d+$' },
        },
        {
          name: 'filter[period]',
          in: 'query',
          required: true,
          description:
            'A quarter (`2026-Q3`), a month (`2026-07`) or a year (`2026`), UTC.',
          schema: {
            type: 'string',
            pattern: '^\\d{4}(-([Qq][1-4]|0[1-9]|1[0-2]))?$',
          },
        },
      ],
      responses: {
        '200': {
          ...jsonApiResponse('The report.', document),
          content: {
            'application/vnd.api+json': { schema: document },
            'text/csv': {
              schema: {
                type: 'string',
                description: `Columns: ${TAX_REPORT_CSV_COLUMNS.join(', ')}.`,
              },
            },
          },
        },
        ...Object.fromEntries(
          [
            ['400', 'BadRequest'],
            ['401', 'Unauthorized'],
            ['404', 'NotFound'],
            ['422', 'Unprocessable'],
            ['429', 'TooManyRequests'],
            ['500', 'InternalError'],
          ].map(([status, name]) => [status, responseRef(name)]),
        ),
      },
    },
  },
};
