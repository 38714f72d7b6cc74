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
  },
};
