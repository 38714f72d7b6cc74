import { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { AppConfig } from '../../config/app-config';
import { HttpErrorCodes } from '../errors/http-error-codes';

/** Load balancers and orchestrators probe these over plain HTTP. */
const HTTPS_EXEMPT = /^\/(health|metrics)(\/|$|\?)/;

/**
 * CORS for an API authenticated by bearer tokens, not cookies: any origin may
 * call it and no credentials are involved, so `*` exposes nothing a
 * server-side client could not fetch. Browser clients may read the rate-limit
 * and request headers. `Vary: Origin` because `Origin: null` is refused on the
 * main address.
 */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': [
    'X-Ratelimit-Limit',
    'X-Ratelimit-Remaining',
    'Retry-After',
    'X-Request-Id',
    'Idempotent-Replayed',
    'Location',
  ].join(', '),
  Vary: 'Origin',
};

/** A preflight's answer: cached by the browser for a day. */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE',
  'Access-Control-Max-Age': '86400',
  'Content-Length': '0',
};

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
 * Request checks that run before routing's guards: no `Origin: null`
 * (sandboxed frames, local files) on the main address, only on the proxy
 * address; the CORS headers; HTTPS only (when REQUIRE_HTTPS). Errors thrown
 * here reach the global exception filter through Nest's error handler.
 */
export function installTransportPolicy(
  fastify: FastifyInstance,
  config: AppConfig,
) {
  const proxy = proxyHost(config);
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.headers.origin === 'null' && !isProxyRequest(request, proxy)) {
      throw AppError.forbidden(
        'Requests with Origin: null are not accepted on this address; use the proxy address.',
        HttpErrorCodes.originNullRefused,
      );
    }
    // From here on errors carry the CORS headers, so browsers can read them.
    void reply.headers(CORS_HEADERS);
    if (
      config.http.requireHttps &&
      request.protocol !== 'https' &&
      !HTTPS_EXEMPT.test(request.url)
    ) {
      throw AppError.badRequest(
        'HTTPS is required. Send the request over https://.',
        undefined,
        HttpErrorCodes.httpsRequired,
      );
    }
  });
  // A preflight on any path. Browsers send it without the Authorization
  // header; any request header may be sent, so the requested ones are allowed.
  fastify.options('*', (request, reply) => {
    const requested = request.headers['access-control-request-headers'];
    if (requested !== undefined) {
      void reply.header('Access-Control-Allow-Headers', requested);
    }
    return reply
      .code(204)
      .headers(PREFLIGHT_HEADERS)
      .header('Vary', 'Origin, Access-Control-Request-Headers')
      .send();
  });
}
