import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import {
  bool,
  exact,
  int,
  nullable,
  num,
  oneOf,
  str,
  ts,
  url,
  uuid,
} from '../../http/openapi/schema';

const ORDER_STATUS = oneOf('pending', 'failed', 'paid', 'refunded');

/** The attributes an order item shares with an order's `first_order_item`. */
const orderItemAttributes = {
  order_id: int(),
  product_id: int(),
  variant_id: int(),
  price_id: int(),
  product_name: str(),
  variant_name: str(),
  price: int('Cents.'),
  quantity: int(),
  created_at: ts(),
  updated_at: ts(),
  test_mode: bool(),
};

export const orderOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'orders',
      attributes: {
        store_id: int(),
        customer_id: int(),
        identifier: uuid(),
        order_number: int(),
        user_name: str(),
        user_email: str(),
        currency: str(),
        currency_rate: num('1 for USD, else the rate to USD at purchase.'),
        tax_name: nullable(str()),
        tax_rate: num('Percent; 0 when no tax applied.'),
        tax_inclusive: bool(),
        status: ORDER_STATUS,
        status_formatted: str(),
        refunded: bool(),
        refunded_at: nullable(ts()),
        subtotal: int(),
        discount_total: int(),
        tax: int(),
        setup_fee: int(),
        total: int(),
        refunded_amount: int(),
        subtotal_usd: int(),
        discount_total_usd: int(),
        tax_usd: int(),
        setup_fee_usd: int(),
        total_usd: int(),
        refunded_amount_usd: int(),
        subtotal_formatted: str(),
        discount_total_formatted: str(),
        tax_formatted: str(),
        setup_fee_formatted: str(),
        total_formatted: str(),
        refunded_amount_formatted: str(),
        first_order_item: nullable(
          exact({ id: int(), ...orderItemAttributes }),
        ),
        urls: exact({ receipt: url('Signed receipt page.') }),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
        dispute: nullable(
          exact({
            status: str(
              'Stripe’s dispute status: `warning_needs_response`, `needs_response`, `under_review`, `won`, `lost` …',
            ),
            reason: str('Stripe’s reason, e.g. `fraudulent`.'),
            amount: int('Disputed minor units of the order’s currency.'),
            created_at: ts(),
          }),
        ),
        tax_note: nullable(
          str(
            'Extension: the reverse-charge wording of a B2B sale that carried no tax.',
          ),
        ),
        refunded_tax: int(
          'Extension: the tax share of refunded_amount, in proportion to the total.',
        ),
        tax_evidence: exact({
          billing_country: nullable(str()),
          billing_zip: nullable(str()),
          billing_region: nullable(
            str(
              'US state or Canadian province, given or read from the postcode.',
            ),
          ),
          tax_number: nullable(str()),
          tax_number_check: nullable(
            oneOf('valid', 'invalid', 'valid_offline', 'not_checked'),
          ),
          rate_source: nullable(
            str(
              'The rate table version, TAX_RATES, reverse_charge or not_registered.',
            ),
          ),
        }),
        invoice_number: nullable(
          str(
            'Extension: the store’s gap-free invoice number (`2026-000042`, `TEST-…` in test mode), drawn when the order is paid; null before (and for a failed order).',
          ),
        ),
      },
    },
    { type: 'order-items', attributes: orderItemAttributes },
  ],
  notes: {
    'POST /v1/orders/{id}/refund': {
      summary: 'Refund an order',
      responses: {
        '503': { $ref: '#/components/responses/ProcessorUnavailable' },
      },
      description:
        'Refunds `amount` cents (the whole remainder when omitted); fires `order_refunded`. A partial refund keeps `status: paid` and raises `refunded_amount`; the refund of the whole remainder sets `status: refunded`, `refunded: true` and `refunded_at`.',
    },
  },
};
