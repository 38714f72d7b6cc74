import { RouteConfig } from '@nestjs/platform-fastify';

/**
 * How a route answers its errors: a JSON:API error document (the default), a
 * plain JSON body `{<outcome>: false, error}` (the License API), or an HTML
 * page for browsers (signed-link pages).
 */
export type ErrorFormat =
  | { kind: 'json-api' }
  | { kind: 'html' }
  | { kind: 'plain-json'; outcome: string };

const JSON_API: ErrorFormat = { kind: 'json-api' };

/**
 * Declares a route's error format. It is stored as Fastify route config, so
 * the global exception filter reads it from the request for every error on
 * the route, including those raised before the handler (unparsable or
 * oversized bodies, onRequest checks); the route table keeps it for requests
 * that matched no method at a known path (405).
 */
export const ErrorFormat = (format: ErrorFormat): MethodDecorator =>
  RouteConfig({ errorFormat: format });

/** The format declared in a route's config, or the JSON:API default. */
export function errorFormatOf(config: unknown): ErrorFormat {
  return (
    (config as { errorFormat?: ErrorFormat } | undefined)?.errorFormat ??
    JSON_API
  );
}
