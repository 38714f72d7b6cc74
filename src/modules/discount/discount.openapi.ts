import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import { bool, int, nullable, oneOf, str, ts } from '../../http/openapi/schema';

export const discountOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'discounts',
      attributes: {
        store_id: int(),
        name: str(),
        code: str(),
        amount: int('A percentage or cents, by `amount_type`.'),
        amount_type: oneOf('percent', 'fixed'),
        is_limited_to_products: bool(),
        is_limited_redemptions: bool(),
        max_redemptions: int(),
        starts_at: nullable(ts()),
        expires_at: nullable(ts()),
        duration: oneOf('once', 'repeating', 'forever'),
        duration_in_months: int(),
        status: oneOf('draft', 'published'),
        status_formatted: str(),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
    {
      type: 'discount-redemptions',
      description: 'No `test_mode`, as upstream.',
      attributes: {
        discount_id: int(),
        order_id: int(),
        discount_name: str(),
        discount_code: str(),
        discount_amount: int(),
        discount_amount_type: oneOf('percent', 'fixed'),
        amount: int('Cents actually deducted.'),
        created_at: ts(),
        updated_at: ts(),
      },
    },
  ],
};
