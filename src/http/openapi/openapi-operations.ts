import type {
  OperationObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { AnyResourceType } from '../json-api/resource';
import { BATCH_ID, type WriteDocumentRules } from '../json-api/write-document';
import {
  jsonApiResponse,
  ref,
  responseRef,
  schemaNames,
} from './json-api-schemas';
import type { OperationDoc } from './openapi-contribution';
import {
  includeParameter,
  listParameters,
  pathParameters,
} from './openapi-parameters';
import { exact, nullable } from './schema';
import { validatorSchema } from './validator-schema';

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

type Responses = Record<string, ResponseObject | ReferenceObject>;

const ERROR_STATUS: Record<string, string> = {
  BadRequest: '400',
  Unauthorized: '401',
  Forbidden: '403',
  OriginRefused: '403',
  NotFound: '404',
  MethodNotAllowed: '405',
  Conflict: '409',
  PayloadTooLarge: '413',
  UnsupportedMediaType: '415',
  Unprocessable: '422',
  TooManyRequests: '429',
  InternalError: '500',
};

/** The shared error responses, by status. */
export const errors = (...names: string[]): Responses =>
  Object.fromEntries(
    names.map((name) => [ERROR_STATUS[name], responseRef(name)]),
  );

/** Any route refuses a browser's `Origin: null` on the main address. */
export const withOriginRefused = (responses: Responses): Responses =>
  // Pages with a `default` refusal already cover it in their own media types.
  responses.default ? responses : { ...errors('OriginRefused'), ...responses };

/** A JSON:API write document of `rules.type`, its attributes from the validator class. */
export function writeDocumentSchema(
  rules: WriteDocumentRules<object>,
): SchemaObject {
  const data: Record<string, SchemaObject> = {
    type: { type: 'string', enum: [rules.type] },
  };
  if (rules.update)
    data.id = {
      type: 'string',
      description: 'Must equal the id in the URL.',
    };
  data.attributes = validatorSchema(rules.attributes as new () => object);
  const relationships = Object.entries(rules.relationships ?? {});
  if (relationships.length > 0) {
    const identifier = (type: string): SchemaObject =>
      exact({
        type: { type: 'string', enum: [type] },
        id: { type: ['string', 'integer'] },
      });
    data.relationships = exact(
      Object.fromEntries(
        relationships.map(([name, rule]) => [
          name,
          exact({
            data: rule.many
              ? { type: 'array', items: identifier(rule.type) }
              : rule.required
                ? identifier(rule.type)
                : nullable(identifier(rule.type)),
          }),
        ]),
      ),
      {
        optional: relationships
          .filter(([, rule]) => !rule.required)
          .map(([name]) => name),
      },
    );
  }
  const requiredRelationship = relationships.some(([, rule]) => rule.required);
  return exact({
    data: {
      type: 'object',
      properties: data,
      required: [
        'type',
        ...(rules.update ? ['id'] : []),
        ...(requiredRelationship ? ['relationships'] : []),
      ],
    },
  });
}

/**
 * A write that also takes a batch (extension): one resource object, or
 * `data` an array of 1 to `limit` of them, each with an optional client `id`.
 */
function batchWriteSchema(
  rules: WriteDocumentRules<object>,
  limit: number,
): SchemaObject {
  const single = writeDocumentSchema(rules);
  const member = (single.properties as Record<string, SchemaObject>).data;
  const withId: SchemaObject = {
    ...member,
    properties: {
      ...(member.properties as Record<string, SchemaObject>),
      id: {
        type: 'string',
        pattern: BATCH_ID.source,
        description:
          'Optional client id: the record is added once per id (in its store and mode); sent again, the first record is answered.',
      },
    },
  };
  return {
    oneOf: [
      single,
      exact({
        data: { type: 'array', minItems: 1, maxItems: limit, items: withId },
      }),
    ],
  };
}

export interface ResourceRoute {
  type: string;
  method: Method;
  /** Path segments after `/v1/<type>`. */
  rest: string[];
  /** The success status. */
  status: string;
  isPublic: boolean;
  /** The handler's `@JsonApiBody` rules, if it takes a write document. */
  rules: WriteDocumentRules<object> | undefined;
  resource: AnyResourceType | undefined;
  /** Relationships of the type that `include` accepts. */
  includes: string[];
}

/**
 * The operation the JSON:API conventions give a `/v1/<type>` route (list,
 * retrieve, create, update, delete, `POST /v1/<type>/{id}/<action>`), or
 * undefined for a route that follows none of them.
 */
export function resourceOperation(
  route: ResourceRoute,
): OperationDoc | undefined {
  const { type, method, rest, status, isPublic, rules, includes } = route;
  const notFound = rest.length > 0 ? errors('NotFound') : {};
  const authErrors = isPublic
    ? errors('TooManyRequests', 'InternalError')
    : errors('Unauthorized', 'TooManyRequests', 'InternalError');
  const name = singular(type);
  if (method === 'get' && rest.length === 0) {
    return {
      summary: `List ${type.replace(/-/g, ' ')}`,
      parameters: listParameters(route.resource!, includes),
      responses: {
        '200': jsonApiResponse(
          `A page of ${type}.`,
          ref(schemaNames.list(type)),
        ),
        ...errors('BadRequest'),
        ...authErrors,
      },
    };
  }
  if (method === 'get' && rest.length === 1) {
    return {
      summary: `Retrieve ${article(name)} ${name}`,
      parameters: includes.length > 0 ? [includeParameter(includes)] : [],
      responses: {
        '200': jsonApiResponse(`The ${name}.`, ref(schemaNames.document(type))),
        ...errors('BadRequest'),
        ...notFound,
        ...authErrors,
      },
    };
  }
  const write =
    (method === 'post' && rest.length === 0) ||
    (method === 'patch' && rest.length === 1) ||
    (method === 'post' && rest.length === 2) ||
    (method === 'delete' && rest.length === 1);
  if (!write) return undefined;
  const bodyErrors = rules
    ? {
        ...errors(
          'BadRequest',
          'PayloadTooLarge',
          'UnsupportedMediaType',
          'Unprocessable',
        ),
        // A relationship to no visible record.
        ...errors('NotFound'),
        ...(rules.update ? errors('Conflict') : {}),
      }
    : {};
  // Another request with the same Idempotency-Key still in progress.
  const idempotencyErrors =
    method === 'post' && !isPublic ? errors('Conflict') : {};
  const verb =
    method === 'patch'
      ? 'Update'
      : method === 'delete'
        ? 'Delete'
        : rest.length === 0
          ? 'Create'
          : capitalize(rest[1].replace(/-/g, ' '));
  return {
    summary: `${verb} ${article(name)} ${name}`,
    requestBody: rules
      ? {
          required: true,
          content: {
            'application/vnd.api+json': {
              schema: rules.batch
                ? batchWriteSchema(rules, rules.batch)
                : writeDocumentSchema(rules),
            },
          },
        }
      : undefined,
    responses: {
      [status]:
        status === '204'
          ? { description: `The ${name} is deleted.` }
          : jsonApiResponse(
              rules?.batch
                ? `The ${name}, or for a batch every ${name} written, in order.`
                : `The ${name}.`,
              rules?.batch
                ? {
                    oneOf: [
                      ref(schemaNames.document(type)),
                      exact({
                        jsonapi: ref('JsonApiVersion'),
                        data: {
                          type: 'array',
                          items: ref(schemaNames.resource(type)),
                        },
                      }),
                    ],
                  }
                : ref(schemaNames.document(type)),
            ),
      ...bodyErrors,
      ...idempotencyErrors,
      ...notFound,
      ...authErrors,
    },
  };
}

export interface RelationshipRoute {
  type: string;
  name: string;
  toOne: boolean;
  /** The related resource. */
  target: AnyResourceType;
  /** Relationships of the target type that `include` accepts. */
  includes: string[];
  /** `/relationships/<name>` (linkage) rather than `/<name>` (related records). */
  linkage: boolean;
  path: string;
}

/** `GET /v1/<type>/{id}/<name>` or `GET /v1/<type>/{id}/relationships/<name>`. */
export function relationshipOperation(
  route: RelationshipRoute,
): OperationObject {
  const { type, name, target, includes, linkage, toOne } = route;
  const responses: Responses = {
    '200': linkage
      ? jsonApiResponse(
          `Linkage of the ${name} relationship.`,
          ref('LinkageDocument'),
        )
      : toOne
        ? jsonApiResponse(`The related ${singular(target.type)}.`, {
            anyOf: [
              ref(schemaNames.document(target.type)),
              ref('EmptyRelatedDocument'),
            ],
          })
        : jsonApiResponse(
            `A page of the related ${target.type}.`,
            ref(schemaNames.list(target.type)),
          ),
    ...errors('BadRequest', 'NotFound', 'OriginRefused'),
    ...errors('Unauthorized', 'TooManyRequests', 'InternalError'),
  };
  return {
    operationId: linkage
      ? `${componentNameOf(type)}.relationships.${name}`
      : `${componentNameOf(type)}.related.${name}`,
    summary: linkage
      ? `Linkage of ${article(singular(type))} ${singular(type)}'s ${name}`
      : `The ${name} of ${article(singular(type))} ${singular(type)}`,
    tags: [type],
    parameters: [
      ...pathParameters(route.path),
      ...(linkage
        ? []
        : toOne
          ? includes.length > 0
            ? [includeParameter(includes)]
            : []
          : listParameters(target, includes)),
    ],
    responses,
  };
}

export function tagOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return segments[0] === 'v1' ? segments[1] : segments[0];
}

/** Every tag the operations use, sorted. */
export function tags(paths: Record<string, PathItemObject>) {
  const names = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      for (const tag of item[method]?.tags ?? []) names.add(tag);
    }
  }
  return [...names].sort().map((name) => ({ name }));
}

export function operationIdOf(key: string): string {
  const [method, path] = key.split(' ');
  return `${method.toLowerCase()}${path
    .split('/')
    .filter(Boolean)
    .map((segment) => capitalize(segment.replace(/[{}]/g, '')))
    .join('')}`.replace(/[^A-Za-z0-9]/g, '');
}

const componentNameOf = (type: string) =>
  type.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const capitalize = (text: string) =>
  text.charAt(0).toUpperCase() + text.slice(1);

function singular(type: string): string {
  const words = type.replace(/-/g, ' ');
  if (words.endsWith('ies')) return `${words.slice(0, -3)}y`;
  if (words.endsWith('sses') || words.endsWith('ches'))
    return words.slice(0, -2);
  return words.endsWith('s') ? words.slice(0, -1) : words;
}

const article = (word: string) =>
  /^(?:[aeio]|u(?!s))/.test(word) ? 'an' : 'a';
