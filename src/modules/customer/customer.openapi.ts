import {
  htmlResponse,
  htmlRefusals,
} from '../../http/openapi/json-api-schemas';
import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import {
  bool,
  exact,
  int,
  nullable,
  oneOf,
  str,
  ts,
  url,
} from '../../http/openapi/schema';
import { CUSTOMER_STATUSES } from './customer.entity';

const BILLING_FORM = exact({
  country: str(),
  region: str(),
  zip: str(),
  city: str(),
  address_line_1: str(),
  address_line_2: str(),
  tax_number: str(),
});

export const customerOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'customers',
      attributes: {
        store_id: int(),
        name: str(),
        email: str(),
        status: oneOf(...CUSTOMER_STATUSES),
        city: nullable(str()),
        region: nullable(str()),
        country: nullable(str()),
        total_revenue_currency: int('USD cents.'),
        mrr: int('USD cents.'),
        status_formatted: str(),
        country_formatted: nullable(str()),
        total_revenue_currency_formatted: str(),
        mrr_formatted: str(),
        urls: exact({
          customer_portal: nullable(
            url('Signed, valid 24 hours; null without a subscription.'),
          ),
        }),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
        address: nullable(
          str('Extension: street address (a newline between two lines).'),
        ),
        zip: nullable(str('Extension: postal code.')),
        tax_number: nullable(
          str(
            'Extension: VAT or other tax number, normalized; an EU or UK number is checked for the country. A change of the billing address re-decides the tax of the customer’s renewing subscriptions.',
          ),
        ),
      },
    },
  ],
  operations: {
    'GET /portal/customers/{id}': {
      summary: 'Customer portal (signed link)',
      description:
        'The page behind `urls.customer_portal`: server-rendered HTML, no API key.',
      tags: ['Hosted pages'],
      responses: {
        '200': htmlResponse('The portal page.'),
        ...htmlRefusals,
      },
    },
    'POST /portal/customers/{id}/billing': {
      summary: 'Update the billing address and tax number (signed link)',
      description:
        "The portal's billing form, saved as `PATCH /v1/customers/{id}` saves it. Same-site form posts only.",
      tags: ['Hosted pages'],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': { schema: BILLING_FORM },
          'application/json': { schema: BILLING_FORM },
        },
      },
      responses: {
        '200': { $ref: '#/components/responses/HtmlPage' },
        '429': { $ref: '#/components/responses/HtmlTooManyRequests' },
        default: { $ref: '#/components/responses/HtmlRefusal' },
      },
    },
  },
};
