import { INestApplication, RequestMethod } from '@nestjs/common';
import {
  HEADERS_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
} from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { IS_PUBLIC } from './auth/public.decorator';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { NOT_IDEMPOTENT } from './idempotency/not-idempotent.decorator';
import { JSON_API_MEDIA_TYPE } from './json-api/document';
import { NOT_JSON_API } from './json-api/not-json-api.decorator';
import {
  RATE_LIMIT_POLICY,
  RateLimitPolicy,
} from './rate-limit/rate-limit.decorator';

/** Stateless: the app's store is found through the request (installIdempotency). */
const idempotencyInterceptor = new IdempotencyInterceptor();

type Handler = (...args: unknown[]) => unknown;

/**
 * Gives each route the response policies that apply to it, as route
 * metadata, before Nest registers the routes (call between
 * `NestFactory.create` and `app.init()`):
 * - JSON:API routes answer `Content-Type: application/vnd.api+json`
 *   (routes marked @NotJsonApi() keep their own);
 * - POST routes behind an API key honour `Idempotency-Key`.
 * Global interceptors would do the same, but they wrap every request of
 * every route in an RxJS chain: about a sixth of the CPU time of a
 * single-record GET (see docs/performance.md). Metadata costs nothing on
 * routes a policy does not apply to, and a module's new routes get the
 * policies without declaring anything.
 *
 * It also refuses to start an app with a public route that declares no
 * rate-limit policy: authenticated routes count per API key by default, but
 * a public route has no safe default (a page, a purchase form and a health
 * probe each need their own), so each says which, `none` included.
 */
export function applyRoutePolicies(app: INestApplication): void {
  const undeclared = routeRateLimits(app)
    .filter((route) => route.isPublic && route.policy === undefined)
    .map((route) => `${route.method} ${route.path}`);
  if (undeclared.length > 0) {
    throw new Error(
      `Public routes without a rate-limit policy (add @RateLimit(...), 'none' included): ${undeclared.join(', ')}`,
    );
  }
  for (const { controller, handler } of controllerRoutes(app)) {
    const marked = (key: string) =>
      Reflect.getMetadata(key, handler) === true ||
      Reflect.getMetadata(key, controller) === true;
    if (!marked(NOT_JSON_API)) {
      addMetadata(HEADERS_METADATA, handler, {
        name: 'Content-Type',
        value: JSON_API_MEDIA_TYPE,
      });
    }
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as
      RequestMethod | undefined;
    if (
      method === RequestMethod.POST &&
      !marked(IS_PUBLIC) &&
      !marked(NOT_IDEMPOTENT)
    ) {
      addMetadata(INTERCEPTORS_METADATA, handler, idempotencyInterceptor);
    }
  }
}

export interface RouteRateLimit {
  /** `GET`, `POST`, …; `ALL` for a route on every method. */
  method: string;
  /** The route's path as declared, e.g. `/checkout/:kind/:id`. */
  path: string;
  isPublic: boolean;
  /** As declared on the handler or its controller; undefined when neither does. */
  policy: RateLimitPolicy | undefined;
}

/** Every route of the app, from Nest's metadata, with its declared rate-limit policy. */
export function routeRateLimits(app: INestApplication): RouteRateLimit[] {
  return [...controllerRoutes(app)].map(({ controller, handler }) => {
    const declared = <T>(key: string) =>
      (Reflect.getMetadata(key, handler) ??
        Reflect.getMetadata(key, controller)) as T | undefined;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as
      RequestMethod | undefined;
    return {
      method: RequestMethod[method ?? RequestMethod.GET],
      path: routePath(
        Reflect.getMetadata(PATH_METADATA, controller) as unknown,
        Reflect.getMetadata(PATH_METADATA, handler) as unknown,
      ),
      isPublic: declared<boolean>(IS_PUBLIC) === true,
      policy: declared<RateLimitPolicy>(RATE_LIMIT_POLICY),
    };
  });
}

function* controllerRoutes(
  app: INestApplication,
): Generator<{ controller: object; handler: Handler }> {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as { prototype?: object } | null;
      if (!controller?.prototype) continue;
      for (const handler of routeHandlers(controller.prototype))
        yield { controller, handler };
    }
  }
}

/** `/prefix/path` from a controller's and a handler's path metadata. */
function routePath(prefix: unknown, path: unknown): string {
  const first = (value: unknown) =>
    String(Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));
  const joined = [first(prefix), first(path)]
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}

/**
 * The prototype's methods that are routes (they carry a path), inherited
 * ones included (products and variants share theirs), as Nest routes them.
 */
function routeHandlers(prototype: object): Handler[] {
  const handlers: Handler[] = [];
  const seen = new Set<string>();
  for (
    let current: object | null = prototype;
    current && current !== Object.prototype;
    current = Object.getPrototypeOf(current) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(current)) {
      if (name === 'constructor' || seen.has(name)) continue;
      seen.add(name);
      const descriptor = Object.getOwnPropertyDescriptor(current, name);
      const value = descriptor?.value as unknown;
      if (
        typeof value === 'function' &&
        Reflect.getMetadata(PATH_METADATA, value) !== undefined
      )
        handlers.push(value as Handler);
    }
  }
  return handlers;
}

/**
 * Appends to an array of route metadata, once: metadata lives on the
 * controller classes, which every app in a process (tests) shares.
 */
function addMetadata(key: string, handler: Handler, entry: object) {
  const current = (Reflect.getMetadata(key, handler) ?? []) as object[];
  const already = current.some(
    (existing) =>
      existing === entry || JSON.stringify(existing) === JSON.stringify(entry),
  );
  if (!already) Reflect.defineMetadata(key, [...current, entry], handler);
}
