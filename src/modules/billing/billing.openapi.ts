import {
  hostedPage,
  jsonApiResponse,
  metaDocument,
  responseRef,
} from '../../http/openapi/json-api-schemas';
import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import { generateInvoiceOperation } from '../invoice/invoice.openapi';
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
} from '../../http/openapi/schema';
import { SUBSCRIPTION_STATUSES } from './subscription.state';

const itemAttributes = {
  subscription_id: int(),
  price_id: int(),
  quantity: int(),
  is_usage_based: bool(),
  created_at: ts(),
  updated_at: ts(),
};

export const billingOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'subscriptions',
      attributes: {
        store_id: int(),
        customer_id: int(),
        order_id: int(),
        order_item_id: int(),
        product_id: int(),
        variant_id: int(),
        product_name: str(),
        variant_name: str(),
        user_name: str(),
        user_email: str(),
        status: oneOf(...SUBSCRIPTION_STATUSES),
        status_formatted: str(),
        card_brand: nullable(str()),
        card_last_four: nullable(str()),
        pause: nullable(
          exact({
            mode: oneOf('void', 'free'),
            resumes_at: nullable(ts()),
          }),
        ),
        cancelled: bool(),
        trial_ends_at: nullable(ts()),
        billing_anchor: int('Day of month, 1–31.'),
        first_subscription_item: nullable(
          exact({ id: int(), ...itemAttributes }),
        ),
        urls: exact({
          update_payment_method: url(),
          customer_portal: url(),
          customer_portal_update_subscription: url(),
        }),
        renews_at: ts(),
        ends_at: nullable(ts()),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
    { type: 'subscription-items', attributes: itemAttributes },
    {
      type: 'usage-records',
      attributes: {
        subscription_item_id: int(),
        quantity: int(),
        action: oneOf('increment', 'set'),
        created_at: ts(),
        updated_at: ts(),
      },
    },
    {
      type: 'subscription-invoices',
      attributes: {
        store_id: int(),
        subscription_id: int(),
        customer_id: int(),
        user_name: str(),
        user_email: str(),
        billing_reason: oneOf('initial', 'renewal', 'updated'),
        card_brand: str('Empty for non-card payments.'),
        card_last_four: str('Empty for non-card payments.'),
        currency: str(),
        currency_rate: num('1 for USD, else the rate to USD at payment.'),
        status: oneOf('pending', 'paid', 'void', 'refunded'),
        status_formatted: str(),
        refunded: bool(),
        refunded_at: nullable(ts()),
        subtotal: int(),
        discount_total: int(),
        tax: int(),
        tax_inclusive: bool(),
        total: int(),
        refunded_amount: int(),
        refunded_amount_usd: int(),
        refunded_amount_formatted: str(),
        subtotal_usd: int(),
        discount_total_usd: int(),
        tax_usd: int(),
        total_usd: int(),
        subtotal_formatted: str(),
        discount_total_formatted: str(),
        tax_formatted: str(),
        total_formatted: str(),
        urls: exact({
          invoice_url: nullable(url('Signed PDF link; null while pending.')),
        }),
        attempt_count: int(
          'Extension (dunning): charges made for the invoice, the renewal and each retry or recovery.',
        ),
        next_retry_at: nullable(
          ts(
            'Extension (dunning): when the renewal sweep charges it again; null when paid, out of retries or while a retry of the sweep is in flight.',
          ),
        ),
        invoice_number: nullable(
          str(
            'Extension: the store’s gap-free invoice number (`2026-000042`, `TEST-…` in test mode), drawn when the invoice is paid; the initial invoice carries its order’s. Null before.',
          ),
        ),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
  ],
  operations: {
    'POST /v1/subscription-invoices/{id}/generate-invoice':
      generateInvoiceOperation('subscription-invoices'),
    'GET /v1/subscription-items/{id}/current-usage': {
      summary: "A usage-based item's usage in the open period",
      tags: ['subscription-items'],
      responses: {
        '200': jsonApiResponse(
          'The current usage.',
          metaDocument(
            exact({
              period_start: ts(),
              period_end: ts(),
              quantity: int(),
              interval_unit: oneOf('day', 'week', 'month', 'year'),
              interval_quantity: int(),
            }),
          ),
        ),
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': { $ref: '#/components/responses/NotFound' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
        '500': { $ref: '#/components/responses/InternalError' },
      },
    },
    'GET /portal/subscriptions/{id}': hostedPage(
      'Subscription portal (signed link)',
    ),
    'POST /portal/subscriptions/{id}/cancel': hostedPage(
      'Cancel at the end of the period from the portal (signed link)',
    ),
    'POST /portal/subscriptions/{id}/resume': hostedPage(
      'Resume a cancelled subscription from the portal (signed link)',
    ),
    'POST /portal/subscriptions/{id}/plan/preview': hostedPage(
      'Price a plan change before confirming it (signed link)',
      { form: ['variant_id'] },
    ),
    'POST /portal/subscriptions/{id}/plan': hostedPage(
      'Confirm a plan change from the portal (signed link)',
      { form: ['variant_id'] },
    ),
    'POST /portal/subscriptions/{id}/quantity': hostedPage(
      'Change the quantity from the portal (signed link)',
      { form: ['quantity'] },
    ),
    'GET /portal/subscriptions/{id}/payment-method': hostedPage(
      'Update-payment-method page (signed link)',
    ),
    'POST /portal/subscriptions/{id}/payment-method': hostedPage(
      'Submit a new payment method (signed link)',
      { form: ['card_number'] },
    ),
    'POST /portal/subscriptions/{id}/payment-method/setup': {
      summary: 'Open a SetupIntent for a new card (signed link; Stripe stores)',
      description:
        'What the payment-method page’s script posts (same-site only) before `stripe.confirmSetup`: the SetupIntent (usage off_session, on the subscription’s Stripe Customer) to confirm with the Payment Element. A click while one is in flight gets the same one.',
      tags: ['Hosted pages'],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: exact({}) } },
      },
      responses: {
        '200': {
          description:
            'The intent to confirm: `client_secret`, `intent_type` setup and the signed `return_url`.',
          content: {
            'application/json': {
              schema: exact({
                intent_type: { type: 'string', enum: ['setup'] },
                client_secret: str(),
                return_url: url(),
              }),
            },
          },
        },
        '429': { $ref: '#/components/responses/HtmlTooManyRequests' },
        default: {
          description:
            'A refusal (JSON:API error): 403 `cross_site_form_refused` or an invalid link, 409 `invoice_payment_in_progress`, 422 `stripe_not_connected` or `subscription_expired`.',
          content: {
            'application/vnd.api+json': {
              schema: { $ref: '#/components/schemas/ErrorDocument' },
            },
          },
        },
      },
    },
    'GET /portal/subscriptions/{id}/payment-method/return': hostedPage(
      'Return from a Stripe card setup (signed link)',
      {
        description:
          'Where Stripe.js brings the buyer after confirming the SetupIntent (Stripe’s `setup_intent…` parameters appended). Settles it once, whether or not Stripe’s webhook came first: the card is saved and, in dunning, the open invoice charged off session.',
        responses: {
          '200': responseRef('HtmlPage'),
          '202': responseRef('HtmlPage'),
          '402': responseRef('HtmlPage'),
        },
      },
    ),
  },
  notes: {
    'DELETE /v1/subscriptions/{id}': {
      summary: 'Cancel a subscription',
      description:
        'Cancels at the end of the period (status `cancelled`, `ends_at` set) and returns the subscription.',
    },
    'POST /v1/subscription-invoices/{id}/refund': {
      summary: 'Refund a subscription invoice',
      responses: {
        '503': { $ref: '#/components/responses/ProcessorUnavailable' },
      },
      description:
        'Refunds `amount` cents (the whole remainder when omitted); fires `subscription_payment_refunded`. A partial refund keeps `status: paid` and raises `refunded_amount`; the refund of the whole remainder sets `status: refunded`, `refunded: true` and `refunded_at`.',
    },
  },
};
