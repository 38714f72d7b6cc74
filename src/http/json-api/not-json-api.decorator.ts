import { SetMetadata } from '@nestjs/common';

export const NOT_JSON_API = 'zest:not-json-api';

/**
 * A route (or controller) that answers something other than a JSON:API
 * document (plain JSON, HTML, PDF). Every other route answers
 * `application/vnd.api+json` (see applyRoutePolicies).
 */
export const NotJsonApi = () => SetMetadata(NOT_JSON_API, true);
