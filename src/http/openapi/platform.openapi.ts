import { plainJsonResponse } from './json-api-schemas';
import type { OpenApiContribution } from './openapi-contribution';
import { exact, freeform } from './schema';

const ok = exact({ status: { type: 'string', enum: ['ok'] } });

function errorResponse(description: string) {
  return {
    description,
    content: {
      'application/vnd.api+json': {
        schema: { $ref: '#/components/schemas/ErrorDocument' },
      },
    },
  };
}

/** The routes of the HTTP layer itself: health checks and this document. */
export const platformOpenApi: OpenApiContribution = {
  operations: {
    'GET /health/live': {
      summary: 'Liveness',
      tags: ['Operations'],
      responses: { '200': plainJsonResponse('The process is up.', ok) },
    },
    'GET /health/ready': {
      summary: 'Readiness (database, queues)',
      tags: ['Operations'],
      responses: {
        '200': plainJsonResponse(
          'Ready.',
          exact({
            status: { type: 'string', enum: ['ok'] },
            checks: freeform('Each dependency and its status.'),
          }),
        ),
        '503': errorResponse('A dependency is down.'),
      },
    },
    'GET /metrics': {
      summary: 'Prometheus metrics',
      description:
        'The Prometheus text format. Requires `Authorization: Bearer <METRICS_TOKEN>`; with `METRICS_TOKEN` unset the route answers 404.',
      tags: ['Operations'],
      responses: {
        '200': {
          description: 'Every series of this process.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '401': errorResponse('No token, or the wrong one.'),
        '404': errorResponse('Metrics are off (METRICS_TOKEN unset).'),
      },
    },
    'GET /v1/openapi.json': {
      summary: 'This OpenAPI document',
      description:
        'Generated from the running server; the reference page at `/docs` renders it.',
      tags: ['Operations'],
      responses: {
        '200': plainJsonResponse('OpenAPI 3.1.', freeform()),
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
};
