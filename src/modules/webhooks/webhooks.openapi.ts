import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import { jsonApiResponse, ref } from '../../http/openapi/json-api-schemas';
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
import { WEBHOOK_EVENT_NAMES } from './webhook-events';

const responses = (...names: [string, string][]) =>
  Object.fromEntries(
    names.map(([status, name]) => [
      status,
      { $ref: `#/components/responses/${name}` },
    ]),
  );

export const webhooksOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'webhooks',
      description: 'The signing secret is write-only: never returned.',
      attributes: {
        store_id: int(),
        url: url(),
        events: array(oneOf(...WEBHOOK_EVENT_NAMES)),
        last_sent_at: nullable(ts()),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
    {
      type: 'webhook-deliveries',
      description:
        'Beyond upstream: one event sent to one webhook, with every attempt.',
      attributes: {
        webhook_id: int(),
        event_id: int(),
        event_name: oneOf(...WEBHOOK_EVENT_NAMES),
        status: oneOf('pending', 'succeeded', 'failed'),
        status_formatted: str(),
        attempts: int(),
        last_response_code: nullable(int()),
        next_attempt_at: nullable(ts()),
        last_attempt_at: nullable(ts()),
        delivered_at: nullable(ts()),
        attempt_log: array(
          exact({
            attempt: int(),
            status: oneOf('succeeded', 'failed'),
            response_code: nullable(int()),
            error: nullable(str()),
            duration_ms: int(),
            started_at: ts(),
            finished_at: ts(),
          }),
        ),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
  ],
  operations: {
    'GET /v1/webhooks/{id}/deliveries': {
      summary: "List a webhook's deliveries",
      description:
        'Beyond upstream: the delivery log of one webhook, newest first.',
      tags: ['webhooks'],
      listParametersOf: 'webhook-deliveries',
      responses: {
        '200': jsonApiResponse(
          'A page of deliveries.',
          ref('WebhookDeliveriesListDocument'),
        ),
        ...responses(
          ['400', 'BadRequest'],
          ['401', 'Unauthorized'],
          ['404', 'NotFound'],
          ['429', 'TooManyRequests'],
          ['500', 'InternalError'],
        ),
      },
    },
  },
  notes: {
    'POST /v1/webhook-deliveries/{id}/resend': {
      summary: 'Resend a delivery',
      description:
        'Queues the event to the webhook again (202); the delivery is shown as it is now.',
    },
  },
};
