import {
  htmlResponse,
  jsonApiResponse,
  ref,
  htmlRefusals,
} from '../../http/openapi/json-api-schemas';
import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import {
  array,
  bool,
  exact,
  freeform,
  int,
  nullable,
  num,
  str,
  ts,
  url,
} from '../../http/openapi/schema';
import type { SchemaObject } from '../../http/openapi/schema';
import { COLOR_KEYS } from './checkout-input';

const checkoutOptions = exact(
  {
    embed: bool(),
    media: bool(),
    logo: bool(),
    desc: bool(),
    discount: bool(),
    skip_trial: bool(),
    quantity: int(),
    subscription_preview: bool(),
    dark: bool('Deprecated.'),
    send_receipt: bool(
      'Extension: false sends no receipt e-mail for orders of this checkout (default true).',
    ),
    ...Object.fromEntries(COLOR_KEYS.map((name) => [name, str()])),
  },
  {
    optional: ['dark', 'send_receipt', ...COLOR_KEYS],
    description:
      '`dark`, `send_receipt` and a colour key appear only when they were supplied.',
  },
);

/** The 17 keys of the SDK's `Preview`: amounts as on the order the checkout makes. */
const preview: SchemaObject = {
  anyOf: [
    { type: 'boolean', enum: [false] },
    exact(
      {
        currency: str(),
        currency_rate: num('1 for USD, else the rate to USD.'),
        subtotal: int(),
        discount_total: int(),
        tax: int(),
        setup_fee: int(),
        total: int(),
        subtotal_usd: int(),
        discount_total_usd: int(),
        tax_usd: int(),
        setup_fee_usd: int(),
        total_usd: int(),
        subtotal_formatted: str(),
        discount_total_formatted: str(),
        tax_formatted: str(),
        setup_fee_formatted: str(),
        total_formatted: str(),
      },
      { description: 'Only in the response to creation with preview: true.' },
    ),
  ],
};

/** The hosted page's answers: HTML for browsers, a JSON:API order for a JSON POST. */
const hostedSubmit = {
  '200': {
    description:
      'Form body: the page again (a discount code applied). JSON body with the page’s `submission` token (the script of a page whose store takes cards through Stripe): the intent to confirm with Stripe.js (`client_secret`, `intent_type` payment or setup, the signed `return_url`), or `redirect` when nothing is left to pay.',
    content: {
      'application/json': {
        schema: {
          anyOf: [
            exact({
              intent_type: { type: 'string', enum: ['payment', 'setup'] },
              client_secret: str(),
              return_url: url(),
            }),
            exact({ redirect: url() }),
          ],
        },
      },
      'text/html': { schema: { type: 'string' } },
    },
  },
  '201': jsonApiResponse(
    'JSON body: the order. X-Ratelimit-* give the client IP’s purchase budget.',
    ref('OrdersDocument'),
  ),
  '303': {
    description:
      'Form body: to the checkout’s `redirect_url` or the receipt page.',
    headers: { Location: { schema: { type: 'string' } } },
  },
  '429': { $ref: '#/components/responses/HtmlTooManyRequests' },
  default: {
    description:
      'A refusal: an HTML page for a form body, a JSON:API error document for a JSON body. A declined card is a 402 with `code` `card_declined`.',
    content: {
      'text/html': { schema: { type: 'string' } },
      'application/vnd.api+json': { schema: ref('ErrorDocument') },
    },
  },
};

const buyerFields = {
  email: str(),
  name: str(),
  'billing_address[country]': str(),
  'billing_address[zip]': str(),
  billing_address: exact(
    { country: str(), zip: str() },
    { optional: ['country', 'zip'] },
  ),
  tax_number: str(),
  discount_code: str(),
  variant_id: { type: ['string', 'integer'] },
  quantity: { type: ['string', 'integer'] },
  card_number: str(
    'Test mode: 4242424242424242 succeeds, 4000000000000002 is declined.',
  ),
  submission: str(
    'The hosted page’s own token (stores that take cards through Stripe): names the order, so repeated submits write it once. With it, a JSON body takes the form’s flat fields (`amount` in major units).',
  ),
};

/** Everything but `email` is optional; `extra` is the pay-what-you-want field. */
const purchaseFields = (extra: Record<string, SchemaObject>) =>
  exact(
    { ...buyerFields, ...extra },
    {
      optional: [
        ...Object.keys(buyerFields).filter((name) => name !== 'email'),
        ...Object.keys(extra),
      ],
    },
  );

const PWYW_RULE =
  'Pay what you want: the price of one unit, at least the variant’s `min_price`; omitted, the `suggested_price`. Only for a pay-what-you-want variant whose checkout sets no `custom_price` (that wins).';

const formFields = purchaseFields({
  amount: str(
    `${PWYW_RULE} In the store currency’s major units, as typed on the page (\`12.50\`); ignored where it does not apply.`,
  ),
});

const jsonFields = purchaseFields({
  custom_price: {
    type: ['integer', 'string'],
    description: `${PWYW_RULE} Integer cents of the store currency (\`1250\`), like a checkout’s \`custom_price\`; refused with 422 where it does not apply or below the minimum.`,
  },
});

export const checkoutOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'checkouts',
      description: 'A custom checkout; `id` is a UUID.',
      attributes: {
        store_id: int(),
        variant_id: int(),
        custom_price: nullable(int()),
        product_options: exact({
          name: str(),
          description: str(),
          media: array(str()),
          redirect_url: str(),
          receipt_button_text: str(),
          receipt_link_url: str(),
          receipt_thank_you_note: str(),
          enabled_variants: array(int()),
          confirmation_title: str(),
          confirmation_message: str(),
          confirmation_button_text: str(),
        }),
        checkout_options: checkoutOptions,
        checkout_data: exact({
          email: str(),
          name: str(),
          billing_address: exact(
            { country: str(), zip: str() },
            { optional: ['country', 'zip'] },
          ),
          tax_number: str(),
          discount_code: str(),
          custom: freeform(),
          variant_quantities: array(
            exact({ variant_id: int(), quantity: int() }),
          ),
        }),
        preview,
        expires_at: nullable(ts()),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
        url: url('The signed hosted checkout page.'),
      },
    },
  ],
  operations: {
    'GET /checkout/{kind}/{id}': {
      summary: 'Hosted checkout page',
      description:
        '`/checkout/custom/{checkout id}?signature=…` (a checkout’s `url`) or `/checkout/buy/{variant uuid}` (a variant’s `buy_now_url`). Server-rendered HTML, usable without JavaScript.',
      tags: ['Hosted pages'],
      responses: {
        '200': htmlResponse(
          'The checkout page. While purchases are paused (too many declined cards) it says so and its Pay button is disabled.',
        ),
        ...htmlRefusals,
      },
    },
    'POST /checkout/{kind}/{id}': {
      summary: 'Complete a purchase on the hosted checkout',
      tags: ['Hosted pages'],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': { schema: formFields },
          'application/json': { schema: jsonFields },
        },
      },
      responses: hostedSubmit,
    },
    'GET /my-orders/{identifier}/return': {
      summary: 'Return from a Stripe payment (signed link)',
      description:
        'Where Stripe.js brings the buyer after confirming a hosted payment (`return_url`, with Stripe’s `payment_intent…`/`setup_intent…` parameters appended). Settles the payment once (whether or not Stripe’s webhook came first), then redirects to the receipt or the checkout’s `redirect_url`; a refused payment shows the checkout again with the refusal (402).',
      tags: ['Hosted pages'],
      responses: {
        '202': htmlResponse(
          'The payment is not complete yet (awaiting authentication or processing).',
        ),
        '303': {
          description: 'Paid: to the checkout’s `redirect_url` or the receipt.',
          headers: { Location: { schema: { type: 'string' } } },
        },
        '402': htmlResponse(
          'Refused: the checkout page again, with the reason and a fresh form.',
        ),
        ...htmlRefusals,
      },
    },
    'GET /my-orders/{identifier}': {
      summary: 'Receipt page (signed link)',
      description: 'The page behind an order’s `urls.receipt`.',
      tags: ['Hosted pages'],
      responses: {
        '200': htmlResponse('The receipt.'),
        ...htmlRefusals,
      },
    },
  },
};
