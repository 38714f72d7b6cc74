import { INestApplication } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { WriteDocumentRules } from '../json-api/write-document';

export const SECURITY_SCHEME = 'apiKey';

/** A controller method that serves a route. */
export interface Route {
  controller: Function;
  handler: Function;
}

/**
 * The routes the running application serves, as Swagger's scanner finds
 * them, under the document's info, server and security scheme; each
 * operation id is `Controller.method` (see `routeHandlers`).
 */
export function scanRoutes(
  app: INestApplication,
  serverUrl: string,
): OpenAPIObject {
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
  return SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });
}

/** Every controller method, by the operation id Swagger gives it. */
export function routeHandlers(app: INestApplication): Map<string, Route> {
  const handlers = new Map<string, Route>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Function | null;
      if (!controller) continue;
      // Handlers may be inherited (products and variants share theirs).
      for (
        let prototype = controller.prototype as Record<string, unknown> | null;
        prototype && prototype !== Object.prototype;
        prototype = Object.getPrototypeOf(prototype) as typeof prototype
      ) {
        for (const name of Object.getOwnPropertyNames(prototype)) {
          const handler = prototype[name];
          const key = `${controller.name}.${name}`;
          if (
            name !== 'constructor' &&
            typeof handler === 'function' &&
            !handlers.has(key)
          ) {
            handlers.set(key, { controller, handler });
          }
        }
      }
    }
  }
  return handlers;
}

/** The `@JsonApiBody(rules)` of a handler, if it takes a JSON:API write document. */
export function writeRules(
  route: Route,
): WriteDocumentRules<object> | undefined {
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
