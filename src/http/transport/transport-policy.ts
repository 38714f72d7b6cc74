import type { FastifyCorsOptionsDelegateCallback } from '@fastify/cors';
import { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { AppConfig } from '../../config/app-config';

/** Load balancers and orchestrators probe these over plain HTTP. */
const HTTPS_EXEMPT = /^\/health(\/|$|\?)/;

/** Headers browser clients may read from a cross-origin response. */
export const CORS_EXPOSED_HEADERS = [
  'X-Ratelimit-Limit',
  'X-Ratelimit-Remaining',
  'Retry-After',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Location',
];

/** Host (with port unless default) that the proxy address answers on, if any. */
export function proxyHost(config: AppConfig): string | null {
  return config.http.proxyBaseUrl
    ? new URL(config.http.proxyBaseUrl).host.toLowerCase()
    : null;
}

/**
 * Whether the request came in on the proxy address: the same listener, told
 * apart by its Host (X-Forwarded-Host behind a trusted proxy).
 */
export function isProxyRequest(
  request: FastifyRequest,
  proxy: string | null,
): boolean {
  return proxy !== null && request.host.toLowerCase() === proxy;
}

/**
 * CORS for an API authenticated by bearer tokens, not cookies: any origin may
 * call it and no credentials are involved, so `*` exposes nothing a
 * server-side client could not fetch. `Origin: null` (sandboxed frames, local
 * files) is accepted only on the proxy address; the main address refuses it
 * (see `installTransportPolicy`).
 */
export function corsDelegate(
  config: AppConfig,
): FastifyCorsOptionsDelegateCallback {
  const proxy = proxyHost(config);
  return (request, callback) => {
    const nullOrigin = request.headers.origin === 'null';
    callback(null, {
      origin: nullOrigin && !isProxyRequest(request, proxy) ? false : '*',
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      exposedHeaders: CORS_EXPOSED_HEADERS,
      credentials: false,
      maxAge: 86400,
      // A malformed preflight falls through to routing, which answers with a
      // JSON:API error instead of a text/plain 400.
      strictPreflight: false,
    });
  };
}

/**
 * Request checks that run before routing's guards: HTTPS only (when
 * REQUIRE_HTTPS), and no `Origin: null` on the main address. Errors thrown
 * here reach the global exception filter through Nest's error handler.
 */
export function installTransportPolicy(
  fastify: FastifyInstance,
  config: AppConfig,
) {
  const proxy = proxyHost(config);
  fastify.addHook('onRequest', async (request) => {
    if (
      config.http.requireHttps &&
      request.protocol !== 'https' &&
      !HTTPS_EXEMPT.test(request.url)
    ) {
      throw AppError.badRequest(
        'HTTPS is required. Send the request over https://.',
      );
    }
    if (request.headers.origin === 'null' && !isProxyRequest(request, proxy)) {
      throw AppError.forbidden(
        'Requests with Origin: null are not accepted on this address; use the proxy address.',
      );
    }
  });
}
