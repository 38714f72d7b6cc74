import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import { bool, exact } from '../../http/openapi/schema';

const errors = (description: string) => ({
  description,
  content: {
    'application/vnd.api+json': {
      schema: { $ref: '#/components/schemas/ErrorDocument' },
    },
  },
});

export const stripeEventsOpenApi: OpenApiContribution = {
  operations: {
    'POST /webhooks/stripe/{storeId}': {
      summary: 'Receive a Stripe event',
      description:
        'Where a store’s Stripe account sends its events (configure this URL in Stripe’s dashboard for test and live mode). Authenticated by `Stripe-Signature` over the raw body with the store’s webhook signing secret of the event’s mode, not an API key. The event is stored once per store and event id and processed by the worker; a replay is acknowledged with `duplicate: true` and changes nothing.',
      tags: ['Stripe'],
      security: [],
      parameters: [
        {
          name: 'Stripe-Signature',
          in: 'header',
          required: true,
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      responses: {
        '200': {
          description: 'Stored (or a replay of a stored event).',
          content: {
            'application/json': {
              schema: exact({ received: bool(), duplicate: bool() }),
            },
          },
        },
        '400': errors(
          '`stripe_signature_invalid`: the signature is missing or wrong; `stripe_event_malformed`: the body is not a Stripe event; `malformed_request`.',
        ),
        '404': errors(
          '`stripe_endpoint_unknown`: no such store, or it has not connected Stripe for the event’s mode.',
        ),
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
};
