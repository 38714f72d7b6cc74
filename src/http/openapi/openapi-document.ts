import { INestApplication } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type {
  OpenAPIObject,
  OperationObject,
  PathItemObject,
  SchemaObject,
} from '@nestjs/swagger';
import { IS_PUBLIC } from '../auth/public.decorator';
import { NOT_JSON_API } from '../json-api/not-json-api.decorator';
import { JsonApi } from '../json-api/json-api.service';
import { AnyResourceType } from '../json-api/resource';
import {
  RATE_LIMIT_POLICY,
  RateLimitPolicy,
} from '../rate-limit/rate-limit.decorator';
import {
  resourceSchemas,
  sharedResponses,
  sharedSchemas,
} from './json-api-schemas';
import { collectContributions, OpenApiDrift } from './openapi-contribution';
import type { OpenApiContribution, OperationDoc } from './openapi-contribution';
import {
  METHODS,
  Method,
  operationIdOf,
  relationshipOperation,
  resourceOperation,
  tagOf,
  tags,
  withOriginRefused,
} from './openapi-operations';
import {
  IDEMPOTENCY_KEY,
  listParameters,
  pathParameters,
  sharedHeaders,
  sharedParameters,
} from './openapi-parameters';
import { routeHandlers, scanRoutes, writeRules } from './openapi-routes';

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
  const scanned = scanRoutes(app, serverUrl);
  const handlers = routeHandlers(app);

  const {
    resources: resourceDocs,
    operations: overrides,
    notes,
  } = collectContributions(contributions);

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

  const listParametersOf = (type: string) =>
    listParameters(registered.get(type)!, includable(type));

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
      const limited =
        reflector.getAllAndOverride<RateLimitPolicy | undefined>(
          RATE_LIMIT_POLICY,
          targets,
        ) !== 'none';
      const common = (doc: OperationDoc): OperationObject => {
        // A limited route can answer 429: its document must say so.
        if (limited && !doc.responses['429'])
          throw new OpenApiDrift(
            `${key} is rate-limited but documents no 429 response`,
          );
        return {
          operationId: scannedOperation.operationId,
          summary: doc.summary,
          ...(doc.description ? { description: doc.description } : {}),
          tags: doc.tags ?? [tagOf(path)],
          parameters: [
            ...pathParameters(path),
            ...(method === 'post' && !isPublic ? [IDEMPOTENCY_KEY] : []),
            ...(doc.parameters ?? []),
            ...(doc.listParametersOf
              ? listParametersOf(doc.listParametersOf)
              : []),
          ],
          ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
          // Any route refuses a browser's `Origin: null` on the main address.
          responses: withOriginRefused(doc.responses),
          ...((doc.security ?? security)
            ? { security: doc.security ?? security }
            : {}),
        };
      };

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
      const note = notes.get(key);
      const generated = resourceOperation({
        type,
        method,
        rest: segments.slice(2),
        status,
        isPublic,
        rules: writeRules(route),
        resource: registered.get(type),
        includes: includable(type),
      });
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
          responses: { ...generated.responses, ...note?.responses },
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
          ...(method === 'post' ? [IDEMPOTENCY_KEY] : []),
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
        const target = registered.get(relationship.type);
        if (!target) continue;
        const concrete = linkage
          ? `/v1/${type}/{id}/relationships/${name}`
          : `/v1/${type}/{id}/${name}`;
        // A literal route of the module wins in the router, and in the document.
        if (scanned.paths[concrete]?.get) continue;
        put(
          concrete,
          'get',
          relationshipOperation({
            type,
            name,
            toOne: relationship.kind === 'one',
            target,
            includes: includable(target.type),
            linkage,
            path: concrete,
          }),
        );
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
      parameters: sharedParameters(),
      headers: sharedHeaders(),
      responses: sharedResponses(),
      schemas: Object.fromEntries(
        Object.keys(schemas)
          .sort()
          .map((name) => [name, schemas[name]]),
      ),
    },
  };
}
