import { INestApplication } from '@nestjs/common';
import {
  HTTP_CODE_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants.js';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { IS_PUBLIC } from '../auth/public.decorator';
import { NOT_JSON_API } from '../json-api/json-api-content-type.interceptor';
import { JsonApi } from '../json-api/json-api.service';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../json-api/list-query';
import type { FilterParser } from '../json-api/list-query';
import { AnyResourceType } from '../json-api/resource';
import type { WriteDocumentRules } from '../json-api/write-document';
import {
  jsonApiResponse,
  ref,
  resourceSchemas,
  responseRef,
  schemaNames,
  sharedResponses,
  sharedSchemas,
} from './json-api-schemas';
import type {
  OpenApiContribution,
  OperationDoc,
  ResourceDoc,
} from './openapi-contribution';
import { exact, nullable } from './schema';
import { validatorSchema } from './validator-schema';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];

export const SECURITY_SCHEME = 'apiKey';

interface Route {
  controller: Function;
  handler: Function;
}

/** Thrown when a route cannot be documented: CI fails until it is. */
export class OpenApiDrift extends Error {}

/** Every controller method, by the operation id Swagger gives it. */
function routeHandlers(app: INestApplication): Map<string, Route> {
  const handlers = new Map<string, Route>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Function | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name !== 'constructor' && typeof handler === 'function') {
          handlers.set(`${controller.name}.${name}`, { controller, handler });
        }
      }
    }
  }
  return handlers;
}

/** The `@JsonApiBody(rules)` of a handler, if it takes a JSON:API write document. */
function writeRules(route: Route): WriteDocumentRules<object> | undefined {
  const args = (Reflect.getMetadata(
    ROUTE_ARGS_METADATA,
    route.controller,
    route.handler.name,
  ) ?? {}) as Record<string, { data?: unknown }>;
  for (const arg of Object.values(args)) {
    const data = arg.data as Partial<WriteDocumentRules<object>> | undefined;
    if (
      typeof data === 'object' &&
      data !== null &&
      typeof data.type === 'string' &&
      typeof data.attributes === 'function'
    ) {
      return data as WriteDocumentRules<object>;
    }
  }
  return undefined;
}

function filterSchema(parser: FilterParser): SchemaObject {
  const allowed = (parser as { allowed?: string[] }).allowed;
  if (allowed) return { type: 'string', enum: allowed };
  if (parser.name === 'id') return { type: 'integer', minimum: 1 };
  if (parser.name === 'boolean') return { type: 'boolean' };
  return { type: 'string' };
}

const pathParameters = (path: string): ParameterObject[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    ...(name === 'id' ? { description: 'The record id.' } : {}),
  }));

const includeParameter = (includable: string[]): ParameterObject => ({
  name: 'include',
  in: 'query',
  required: false,
  description: `Comma-separated relationships to add as \`included\` (empty = none). Allowed: ${includable.join(', ')}.`,
  schema: { type: 'string' },
});

/**
 * Builds the OpenAPI 3.1 document from the running application: Swagger's
 * scanner finds the routes, the `JsonApi` registry gives each resource type's
 * relationships, filters, sorts and includes, the `@JsonApiBody` rules give
 * request bodies, and each module's `*.openapi.ts` gives attributes and the
 * operations the JSON:API conventions do not describe. A route it cannot
 * describe is an error, not a gap in the document.
 */
export function buildOpenApiDocument(
  app: INestApplication,
  contributions: OpenApiContribution[],
  serverUrl: string,
): OpenAPIObject {
  const jsonApi = app.get(JsonApi);
  const reflector = new Reflector();
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Zest API')
    .setVersion('v1')
    .setDescription(
      'Self-hostable digital-commerce API, wire-compatible with the Lemon Squeezy v1 REST API (JSON:API). ' +
        "Every `/v1` route takes `Authorization: Bearer <API key>` except the License API; a key sees only its user's stores and only records of its own mode (test or live). " +
        'Lists take `page[number]`, `page[size]` (1–100, default 10), `filter[...]`, `sort` and `include`.',
    )
    .addServer(serverUrl)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description:
          'An API key (`zest_test_…` or `zest_live_…`), created with `npm run cli -- api-keys:create`.',
      },
      SECURITY_SCHEME,
    )
    .addSecurityRequirements(SECURITY_SCHEME)
    .build();
  const scanned = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });
  const handlers = routeHandlers(app);

  const resourceDocs = new Map<string, ResourceDoc>();
  const overrides = new Map<string, OperationDoc>();
  const notes = new Map<
    string,
    NonNullable<OpenApiContribution['notes']>[string]
  >();
  for (const contribution of contributions) {
    for (const doc of contribution.resources ?? []) {
      if (resourceDocs.has(doc.type))
        throw new OpenApiDrift(`Resource ${doc.type} is documented twice`);
      resourceDocs.set(doc.type, doc);
    }
    for (const [key, operation] of Object.entries(
      contribution.operations ?? {},
    )) {
      if (overrides.has(key))
        throw new OpenApiDrift(`Operation ${key} is documented twice`);
      overrides.set(key, operation);
    }
    for (const [key, note] of Object.entries(contribution.notes ?? {})) {
      notes.set(key, note);
    }
  }

  const registered = new Map<string, AnyResourceType>(
    jsonApi.resources().map((resource) => [resource.type, resource]),
  );
  for (const type of registered.keys()) {
    if (!resourceDocs.has(type))
      throw new OpenApiDrift(
        `Resource type ${type} has no *.openapi.ts attributes`,
      );
  }
  const includable = (type: string) =>
    Object.entries(registered.get(type)?.relationships ?? {})
      .filter(([, relationship]) => registered.has(relationship.type))
      .map(([name]) => name);

  const schemas: Record<string, SchemaObject> = sharedSchemas();
  for (const doc of resourceDocs.values()) {
    const resource = registered.get(doc.type);
    Object.assign(
      schemas,
      resourceSchemas({
        type: doc.type,
        description: doc.description,
        attributes: doc.attributes,
        meta: doc.meta,
        relationships: resource
          ? Object.keys(resource.relationships)
          : (doc.relationships ?? []),
        includable: [
          ...new Set(
            Object.values(resource?.relationships ?? {})
              .map((relationship) => relationship.type)
              .filter((type) => registered.has(type)),
          ),
        ],
      }),
    );
  }

  const listParameters = (type: string): ParameterObject[] => {
    const resource = registered.get(type)!;
    const parameters: ParameterObject[] = [
      {
        name: 'page[number]',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, default: 1 },
      },
      {
        name: 'page[size]',
        in: 'query',
        required: false,
        schema: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_PAGE_SIZE,
          default: DEFAULT_PAGE_SIZE,
        },
      },
      {
        name: 'sort',
        in: 'query',
        required: false,
        description: `Comma-separated attributes, \`-\` for descending. Allowed: ${resource.list.sorts.join(', ')}. Default: ${resource.list.defaultSort}.`,
        schema: { type: 'string', default: resource.list.defaultSort },
      },
    ];
    for (const [name, parser] of Object.entries(resource.list.filters)) {
      parameters.push({
        name: `filter[${name}]`,
        in: 'query',
        required: false,
        description: 'Exact match.',
        schema: filterSchema(parser),
      });
    }
    const includes = includable(type);
    if (includes.length > 0) parameters.push(includeParameter(includes));
    return parameters;
  };

  const errors = (...names: string[]) =>
    Object.fromEntries(
      names.map((name) => [ERROR_STATUS[name], responseRef(name)]),
    );

  // Pages with a `default` refusal already cover it in their own media types.
  const withOriginRefused = (
    responses: Record<string, ResponseObject | ReferenceObject>,
  ) =>
    responses.default
      ? responses
      : { ...errors('OriginRefused'), ...responses };

  const paths: Record<string, PathItemObject> = {};
  const put = (path: string, method: Method, operation: OperationObject) => {
    paths[path] ??= {};
    if (paths[path][method])
      throw new OpenApiDrift(`${method.toUpperCase()} ${path} twice`);
    paths[path][method] = operation;
  };

  for (const [path, item] of Object.entries(scanned.paths)) {
    for (const method of METHODS) {
      const scannedOperation = item[method];
      if (!scannedOperation) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const route = handlers.get(scannedOperation.operationId ?? '');
      if (!route) throw new OpenApiDrift(`No handler found for ${key}`);
      const targets = [route.handler, route.controller];
      const isPublic = reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets);
      const status = String(
        (Reflect.getMetadata(HTTP_CODE_METADATA, route.handler) as
          number | undefined) ?? (method === 'post' ? 201 : 200),
      );
      const security = isPublic ? [] : undefined;
      const common = (doc: OperationDoc): OperationObject => ({
        operationId: scannedOperation.operationId,
        summary: doc.summary,
        ...(doc.description ? { description: doc.description } : {}),
        tags: doc.tags ?? [tagOf(path)],
        parameters: [
          ...pathParameters(path),
          ...(method === 'post' && !isPublic
            ? [{ $ref: '#/components/parameters/IdempotencyKey' }]
            : []),
          ...(doc.parameters ?? []),
          ...(doc.listParametersOf ? listParameters(doc.listParametersOf) : []),
        ],
        ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
        // Any route refuses a browser's `Origin: null` on the main address.
        responses: withOriginRefused(doc.responses),
        ...((doc.security ?? security)
          ? { security: doc.security ?? security }
          : {}),
      });

      const override = overrides.get(key);
      if (override) {
        overrides.delete(key);
        put(path, method, common(override));
        continue;
      }
      // Routes with the type as a parameter: documented per concrete type.
      if (path.startsWith('/v1/{')) {
        const expanded = expandGeneric(path, method);
        if (expanded === 0)
          throw new OpenApiDrift(
            `${key} serves several types: document each in a *.openapi.ts (e.g. ${method.toUpperCase()} /v1/orders/...)`,
          );
        continue;
      }
      const segments = path.split('/').filter(Boolean);
      const type = segments[1];
      const doc = resourceDocs.get(type);
      const notJsonApi = reflector.getAllAndOverride<boolean>(
        NOT_JSON_API,
        targets,
      );
      if (segments[0] !== 'v1' || !doc || notJsonApi) {
        throw new OpenApiDrift(
          `${key} is not a JSON:API resource route: document it in a *.openapi.ts`,
        );
      }
      const rules = writeRules(route);
      const rest = segments.slice(2);
      const notFound = rest.length > 0 ? errors('NotFound') : {};
      const authErrors = isPublic
        ? errors('TooManyRequests', 'InternalError')
        : errors('Unauthorized', 'TooManyRequests', 'InternalError');
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
      const requestBody = rules
        ? {
            required: true,
            content: {
              'application/vnd.api+json': {
                schema: writeDocumentSchema(rules),
              },
            },
          }
        : undefined;
      const note = notes.get(key);
      const name = singular(type);
      let generated: OperationDoc | undefined;
      if (method === 'get' && rest.length === 0) {
        generated = {
          summary: `List ${type.replace(/-/g, ' ')}`,
          parameters: listParameters(type),
          responses: {
            '200': jsonApiResponse(
              `A page of ${type}.`,
              ref(schemaNames.list(type)),
            ),
            ...errors('BadRequest'),
            ...authErrors,
          },
        };
      } else if (method === 'get' && rest.length === 1) {
        const includes = registered.has(type) ? includable(type) : [];
        generated = {
          summary: `Retrieve ${article(name)} ${name}`,
          parameters: includes.length > 0 ? [includeParameter(includes)] : [],
          responses: {
            '200': jsonApiResponse(
              `The ${name}.`,
              ref(schemaNames.document(type)),
            ),
            ...errors('BadRequest'),
            ...notFound,
            ...authErrors,
          },
        };
      } else if (
        (method === 'post' && rest.length === 0) ||
        (method === 'patch' && rest.length === 1) ||
        (method === 'post' && rest.length === 2) ||
        (method === 'delete' && rest.length === 1)
      ) {
        const verb =
          method === 'patch'
            ? 'Update'
            : method === 'delete'
              ? 'Delete'
              : rest.length === 0
                ? 'Create'
                : capitalize(rest[1].replace(/-/g, ' '));
        generated = {
          summary: `${verb} ${article(name)} ${name}`,
          requestBody,
          responses: {
            [status]:
              status === '204'
                ? { description: `The ${name} is deleted.` }
                : jsonApiResponse(
                    `The ${name}.`,
                    ref(schemaNames.document(type)),
                  ),
            ...bodyErrors,
            ...idempotencyErrors,
            ...notFound,
            ...authErrors,
          },
        };
      }
      if (!generated) {
        throw new OpenApiDrift(
          `${key} does not follow the JSON:API routes: document it in a *.openapi.ts`,
        );
      }
      put(
        path,
        method,
        common({
          ...generated,
          ...(note?.summary ? { summary: note.summary } : {}),
          ...(note?.description ? { description: note.description } : {}),
          parameters: [
            ...(generated.parameters ?? []),
            ...(note?.parameters ?? []),
          ],
        }),
      );
    }
  }

  /**
   * `/v1/{type}/{id}/...` routes: the relationship routes are written out for
   * every registered relationship; any other (generate-invoice) needs its
   * concrete operations documented by the modules that serve them.
   */
  function expandGeneric(path: string, method: Method): number {
    let count = 0;
    const pattern = new RegExp(
      `^${path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\//g, '\\/')}$`,
    );
    for (const [key, operation] of overrides) {
      const [keyMethod, keyPath] = key.split(' ');
      if (keyMethod !== method.toUpperCase() || !pattern.test(keyPath))
        continue;
      // A module's own route for this path documents itself.
      if (scanned.paths[keyPath]?.[method]) continue;
      overrides.delete(key);
      put(keyPath, method, {
        operationId: operationIdOf(key),
        summary: operation.summary,
        ...(operation.description
          ? { description: operation.description }
          : {}),
        tags: operation.tags ?? [tagOf(keyPath)],
        parameters: [
          ...pathParameters(keyPath),
          ...(method === 'post'
            ? [{ $ref: '#/components/parameters/IdempotencyKey' }]
            : []),
          ...(operation.parameters ?? []),
        ],
        ...(operation.requestBody
          ? { requestBody: operation.requestBody }
          : {}),
        responses: withOriginRefused(operation.responses),
        ...(operation.security ? { security: operation.security } : {}),
      });
      count++;
    }
    if (method !== 'get') return count;
    const linkage = path.endsWith('/relationships/{relationship}');
    if (!linkage && !/^\/v1\/\{[^}]+\}\/\{[^}]+\}\/\{[^}]+\}$/.test(path))
      return count;
    for (const [type, resource] of registered) {
      for (const [name, relationship] of Object.entries(
        resource.relationships,
      )) {
        const target = relationship.type;
        if (!registered.has(target)) continue;
        const concrete = linkage
          ? `/v1/${type}/{id}/relationships/${name}`
          : `/v1/${type}/{id}/${name}`;
        // A literal route of the module wins in the router, and in the document.
        if (scanned.paths[concrete]?.get) continue;
        const toOne = relationship.kind === 'one';
        const responses: Record<string, ResponseObject | ReferenceObject> = {
          '200': linkage
            ? jsonApiResponse(
                `Linkage of the ${name} relationship.`,
                ref('LinkageDocument'),
              )
            : toOne
              ? jsonApiResponse(`The related ${singular(target)}.`, {
                  anyOf: [
                    ref(schemaNames.document(target)),
                    ref('EmptyRelatedDocument'),
                  ],
                })
              : jsonApiResponse(
                  `A page of the related ${target}.`,
                  ref(schemaNames.list(target)),
                ),
          ...errors('BadRequest', 'NotFound', 'OriginRefused'),
          ...errors('Unauthorized', 'TooManyRequests', 'InternalError'),
        };
        const includes = includable(target);
        put(concrete, 'get', {
          operationId: linkage
            ? `${componentNameOf(type)}.relationships.${name}`
            : `${componentNameOf(type)}.related.${name}`,
          summary: linkage
            ? `Linkage of ${article(singular(type))} ${singular(type)}'s ${name}`
            : `The ${name} of ${article(singular(type))} ${singular(type)}`,
          tags: [type],
          parameters: [
            ...pathParameters(concrete),
            ...(linkage
              ? []
              : toOne
                ? includes.length > 0
                  ? [includeParameter(includes)]
                  : []
                : listParameters(target)),
          ],
          responses,
        });
        count++;
      }
    }
    return count;
  }

  for (const key of overrides.keys()) {
    throw new OpenApiDrift(`${key} is documented but not served`);
  }

  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((path) => [path, paths[path]]),
  );
  return {
    openapi: '3.1.0',
    info: scanned.info,
    servers: scanned.servers,
    security: scanned.security,
    tags: tags(sortedPaths),
    paths: sortedPaths,
    components: {
      securitySchemes: scanned.components?.securitySchemes,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Replays the first response to a repeated POST with the same key for 24 hours; the same key with a different body is a 422.',
          schema: { type: 'string', maxLength: 255 },
        },
      },
      headers: {
        RateLimitLimit: {
          description: 'Requests allowed per minute.',
          schema: { type: 'integer' },
        },
        RateLimitRemaining: {
          description: 'Requests left in the current minute.',
          schema: { type: 'integer' },
        },
      },
      responses: sharedResponses(),
      schemas: Object.fromEntries(
        Object.keys(schemas)
          .sort()
          .map((name) => [name, schemas[name]]),
      ),
    },
  };
}

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

function tagOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return segments[0] === 'v1' ? segments[1] : segments[0];
}

function tags(paths: Record<string, PathItemObject>) {
  const names = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      for (const tag of item[method]?.tags ?? []) names.add(tag);
    }
  }
  return [...names].sort().map((name) => ({ name }));
}

function operationIdOf(key: string): string {
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
