import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import {
  array,
  bool,
  exact,
  int,
  nullable,
  oneOf,
  str,
  ts,
  url,
} from '../../http/openapi/schema';

export const storeOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'stores',
      description: 'A store; stores exist in both modes (no `test_mode`).',
      attributes: {
        name: str(),
        slug: str(),
        domain: str(),
        url: url(),
        avatar_url: str(),
        plan: str(),
        country: str('ISO 3166-1 alpha-2.'),
        country_nicename: str(),
        currency: str('ISO 4217.'),
        total_sales: int(),
        total_revenue: int('USD cents.'),
        thirty_day_sales: int(),
        thirty_day_revenue: int('USD cents.'),
        stripe: exact(
          { mode: oneOf('test', 'live'), configured: bool() },
          {
            description:
              'Zest extension: whether the store’s Stripe account is connected in the API key’s mode. Write-only keys: PATCH `stripe` with `secret_key`, `publishable_key` and `webhook_secret` of that mode (null disconnects); they are never returned.',
          },
        ),
        legal_name: nullable(
          str(
            'Zest extension: the seller’s legal name on receipts and invoices; null prints the store name. PATCH to set.',
          ),
        ),
        legal_address: nullable(
          exact(
            {
              lines: array(str()),
              city: nullable(str()),
              state: nullable(str()),
              postcode: nullable(str()),
              country: str('ISO 3166-1 alpha-2.'),
            },
            {
              description:
                'Zest extension: the seller’s postal address on receipts and invoices, printed in its country’s format. PATCH to set (`lines`: up to 3 street lines).',
            },
          ),
        ),
        tax_numbers: nullable({
          type: 'object',
          additionalProperties: str(),
          description:
            'Zest extension: VAT/GST registration numbers by ISO 3166-1 alpha-2 country (EU and UK numbers checked offline); receipts and invoices print the one of the buyer’s country, else the store’s country’s. PATCH to set.',
        }),
        created_at: ts(),
        updated_at: ts(),
      },
    },
  ],
};
