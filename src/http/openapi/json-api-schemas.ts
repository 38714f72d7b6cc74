import type {
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { JSON_API_MEDIA_TYPE } from '../json-api/document';
import type { OperationDoc } from './openapi-contribution';
import { exact, int, nullable, str, url } from './schema';

/** `license-keys` → `LicenseKeys`: the prefix of a resource type's component names. */
export function componentName(type: string): string {
  return type
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

export const ref = (name: string): ReferenceObject => ({
  $ref: `#/components/schemas/${name}`,
});
export const responseRef = (name: string): ReferenceObject => ({
  $ref: `#/components/responses/${name}`,
});

export const schemaNames = {
  attributes: (type: string) => `${componentName(type)}Attributes`,
  resource: (type: string) => `${componentName(type)}Resource`,
  document: (type: string) => `${componentName(type)}Document`,
  list: (type: string) => `${componentName(type)}ListDocument`,
};

/** A JSON:API response with this schema (200 unless said otherwise by the key it is put under). */
export function jsonApiResponse(
  description: string,
  schema: SchemaObject | ReferenceObject,
): ResponseObject {
  return {
    description,
    headers: {
      'X-Ratelimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
      'X-Ratelimit-Remaining': {
        $ref: '#/components/headers/RateLimitRemaining',
      },
    },
    content: { [JSON_API_MEDIA_TYPE]: { schema } },
  };
}

/** A response carrying the single document of `type`. */
export const singleResponse = (type: string, description?: string) =>
  jsonApiResponse(
    description ?? `The ${type} resource.`,
    ref(schemaNames.document(type)),
  );

/** A JSON:API document with only `meta` (invoice links, current usage). */
export function metaDocument(meta: SchemaObject): SchemaObject {
  return exact({ jsonapi: ref('JsonApiVersion'), meta });
}

/** A response in plain `application/json` (License API, health). */
export function plainJsonResponse(
  description: string,
  schema: SchemaObject | ReferenceObject,
): ResponseObject {
  return { description, content: { 'application/json': { schema } } };
}

export function htmlResponse(description: string): ResponseObject {
  return {
    description,
    content: { 'text/html': { schema: { type: 'string' } } },
  };
}

/** What every hosted page may answer instead: 429, or an HTML error page. */
export const htmlRefusals = {
  '429': responseRef('HtmlTooManyRequests'),
  default: responseRef('HtmlRefusal'),
};

/**
 * A hosted page's operation (a signed link; HTML, no API key): 200 with
 * the page unless `responses` says otherwise, and the refusals. `form` names
 * the string fields a POST takes, as a form or as JSON.
 */
export function hostedPage(
  summary: string,
  options: {
    description?: string;
    form?: string[];
    responses?: Record<string, ResponseObject | ReferenceObject>;
  } = {},
): OperationDoc {
  const fields = exact(
    Object.fromEntries((options.form ?? []).map((name) => [name, str()])),
  );
  return {
    summary,
    ...(options.description ? { description: options.description } : {}),
    tags: ['Hosted pages'],
    ...(options.form
      ? {
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': { schema: fields },
              'application/json': { schema: fields },
            },
          },
        }
      : {}),
    responses: {
      ...(options.responses ?? { '200': responseRef('HtmlPage') }),
      ...htmlRefusals,
    },
  };
}

/** The components every document shares: versions, links, pages, errors. */
export function sharedSchemas(): Record<string, SchemaObject> {
  const links = (...names: string[]) =>
    exact(Object.fromEntries(names.map((name) => [name, url()])));
  return {
    JsonApiVersion: exact({ version: { type: 'string', enum: ['1.0'] } }),
    ResourceIdentifier: exact({ type: str(), id: str() }),
    Relationship: exact(
      {
        links: links('related', 'self'),
        data: nullable({
          anyOf: [
            ref('ResourceIdentifier'),
            { type: 'array', items: ref('ResourceIdentifier') },
          ],
        }),
      },
      {
        optional: ['data'],
        description:
          'Links to the related records; `data` linkage when the relationship was included.',
      },
    ),
    PageMeta: exact(
      {
        currentPage: int(),
        from: int(),
        lastPage: int(),
        perPage: int(),
        to: int(),
        total: int(),
      },
      {
        optional: ['currentPage', 'from', 'lastPage', 'to'],
        description:
          'A page asked for by cursor (`page[after]`/`page[before]`, lists that offer them) has only `perPage` and `total`; a numbered page has every member.',
      },
    ),
    ListLinks: exact(
      { first: url(), last: url(), next: url(), prev: url() },
      {
        optional: ['next', 'prev'],
        description:
          '`next` and `prev` appear only when that page exists. Every link carries page[number], page[size], the active filters and sort; on a cursor page `next` and `prev` carry `page[after]`/`page[before]` instead of page[number].',
      },
    ),
    ErrorObject: exact(
      {
        status: { type: 'string', pattern: '^[45]\\d\\d$' },
        title: str('The standard reason phrase of the status.'),
        detail: str(),
        code: str(
          'A stable, machine-readable snake_case name for the error, on every error (README, "Error codes"). Tell one 422 from another by it, not by `detail`.',
        ),
        source: {
          type: 'object',
          properties: { pointer: str(), parameter: str(), header: str() },
          additionalProperties: false,
          minProperties: 1,
          maxProperties: 1,
        },
      },
      { optional: ['detail', 'source'] },
    ),
    ErrorDocument: exact({
      jsonapi: ref('JsonApiVersion'),
      errors: { type: 'array', items: ref('ErrorObject'), minItems: 1 },
    }),
    LinkageDocument: exact({
      jsonapi: ref('JsonApiVersion'),
      links: links('self', 'related'),
      data: nullable({
        anyOf: [
          ref('ResourceIdentifier'),
          { type: 'array', items: ref('ResourceIdentifier') },
        ],
      }),
    }),
    EmptyRelatedDocument: exact(
      {
        jsonapi: ref('JsonApiVersion'),
        links: links('self'),
        data: { type: 'null' },
      },
      { description: 'A to-one relationship that points at no record.' },
    ),
  };
}

/** Every resource type's attributes, resource object, single and list documents. */
export function resourceSchemas(resource: {
  type: string;
  description?: string;
  attributes: Record<string, SchemaObject>;
  relationships: string[];
  includable: string[];
  meta?: SchemaObject;
}): Record<string, SchemaObject> {
  const { type } = resource;
  const properties: Record<string, SchemaObject | ReferenceObject> = {
    type: { type: 'string', enum: [type] },
    id: str(),
    attributes: ref(schemaNames.attributes(type)),
  };
  if (resource.relationships.length > 0) {
    properties.relationships = exact(
      Object.fromEntries(
        resource.relationships.map((name) => [name, ref('Relationship')]),
      ),
    );
  }
  properties.links = exact({ self: url() });
  const included: SchemaObject | undefined =
    resource.includable.length > 0
      ? {
          type: 'array',
          items: {
            anyOf: resource.includable.map((target) =>
              ref(schemaNames.resource(target)),
            ),
          },
        }
      : undefined;
  const single: Record<string, SchemaObject | ReferenceObject> = {
    jsonapi: ref('JsonApiVersion'),
    links: exact({ self: url() }),
    data: ref(schemaNames.resource(type)),
  };
  const optional: string[] = [];
  if (included) {
    single.included = included;
    optional.push('included');
  }
  if (resource.meta) single.meta = resource.meta;
  const list: Record<string, SchemaObject | ReferenceObject> = {
    meta: exact({ page: ref('PageMeta') }),
    jsonapi: ref('JsonApiVersion'),
    links: ref('ListLinks'),
    data: { type: 'array', items: ref(schemaNames.resource(type)) },
  };
  if (included) list.included = included;
  return {
    [schemaNames.attributes(type)]: exact(resource.attributes),
    [schemaNames.resource(type)]: exact(properties, {
      description: resource.description,
    }),
    [schemaNames.document(type)]: exact(single, { optional }),
    [schemaNames.list(type)]: exact(list, { optional }),
  };
}

const errorResponse = (description: string): ResponseObject => ({
  description,
  content: { [JSON_API_MEDIA_TYPE]: { schema: ref('ErrorDocument') } },
});

/** The error responses, shared by reference. */
export function sharedResponses(): Record<string, ResponseObject> {
  return {
    BadRequest: errorResponse(
      'Malformed request: an unknown or invalid query parameter (`source.parameter`), malformed JSON or a body of the wrong shape (`source.pointer`).',
    ),
    Unauthorized: errorResponse(
      'Missing, malformed, expired or revoked API key.',
    ),
    Forbidden: errorResponse(
      'The signature of a signed URL is missing, wrong or expired.',
    ),
    OriginRefused: errorResponse(
      'A browser request with `Origin: null` on the main address (CORS); the proxy address accepts it.',
    ),
    NotFound: errorResponse(
      "No such record, or one outside the key's stores or mode.",
    ),
    MethodNotAllowed: {
      ...errorResponse('The path exists but not with this method.'),
      headers: { Allow: { schema: { type: 'string' } } },
    },
    Conflict: errorResponse(
      '`data.id` does not match the id in the URL, or a request with the same Idempotency-Key is still in progress.',
    ),
    PayloadTooLarge: errorResponse('The body is larger than 1 MiB.'),
    UnsupportedMediaType: errorResponse(
      'The body is not JSON:API, JSON or form fields.',
    ),
    Unprocessable: errorResponse(
      'Validation failed: one error per field with `source.pointer`, or a business rule refused the change.',
    ),
    TooManyRequests: {
      ...errorResponse(
        'Rate limit exceeded: per API key, or per client IP on public routes (`code` `rate_limited`). Retry after the seconds in `Retry-After`.',
      ),
      headers: { 'Retry-After': { schema: { type: 'integer' } } },
    },
    HtmlTooManyRequests: {
      description:
        'Rate limit exceeded, per client IP (and, for purchases, per checkout: `code` `rate_limited`), or purchases on this checkout paused after too many declined cards (`code` `checkout_locked`). A page for a browser or a posted form, else a JSON:API error document. Retry after the seconds in `Retry-After`.',
      headers: { 'Retry-After': { schema: { type: 'integer' } } },
      content: {
        'text/html': { schema: { type: 'string' } },
        [JSON_API_MEDIA_TYPE]: { schema: ref('ErrorDocument') },
      },
    },
    HtmlPage: htmlResponse('The page.'),
    HtmlRefusal: {
      description:
        'A refusal: a page for invalid input on the page itself, a JSON:API error document when the signed link is refused.',
      content: {
        'text/html': { schema: { type: 'string' } },
        [JSON_API_MEDIA_TYPE]: { schema: ref('ErrorDocument') },
      },
    },
    ProcessorUnavailable: errorResponse(
      'The payment processor could not be reached (`code` `payment_processor_unavailable`). The payment is settled automatically within minutes; read the record again later.',
    ),
    InternalError: errorResponse(
      'Unexpected failure; the detail is generic and the request id is logged.',
    ),
  };
}
