import { plainJsonResponse } from './json-api-schemas';
import type { OpenApiContribution } from './openapi-contribution';
import { exact, freeform } from './schema';

const ok = exact({ status: { type: 'string', enum: ['ok'] } });

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
        '503': {
          description: 'A dependency is down.',
          content: {
            'application/vnd.api+json': {
              schema: { $ref: '#/components/schemas/ErrorDocument' },
            },
          },
        },
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
