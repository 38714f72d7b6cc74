import { singleResponse } from '../../http/openapi/json-api-schemas';
import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import { bool, exact, str, ts, url } from '../../http/openapi/schema';

const errors = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '429': { $ref: '#/components/responses/TooManyRequests' },
  '500': { $ref: '#/components/responses/InternalError' },
};

export const userOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'users',
      description: "The API key's user (camelCase timestamps, as upstream).",
      attributes: {
        name: str(),
        email: str(),
        color: str(),
        avatar_url: url(),
        has_custom_avatar: bool(),
        createdAt: ts(),
        updatedAt: ts(),
      },
      meta: exact({ test_mode: bool("The key's mode.") }),
    },
  ],
  operations: {
    'GET /v1/users/me': {
      summary: 'Retrieve the authenticated user',
      description:
        "The key's user; `meta.test_mode` is the key's mode and `links.self` is `/v1/users/{id}`.",
      responses: {
        '200': singleResponse('users', 'The user.'),
        '400': { $ref: '#/components/responses/BadRequest' },
        ...errors,
      },
    },
  },
};
