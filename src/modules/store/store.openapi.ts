import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import {
  bool,
  exact,
  int,
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
        created_at: ts(),
        updated_at: ts(),
      },
    },
  ],
};
