import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { Params } from 'nestjs-pino';
import { AppConfig } from '../config/app-config';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token, else a new UUID. */
export function requestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given)
    ? given
    : randomUUID();
}

/** Signed URLs are capabilities: their signature never reaches the logs. */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/([?&](signature|expires)=)[^&]*/gi, '$1[Redacted]');
}

/**
 * One JSON line per request, with a request id that is echoed as
 * X-Request-Id. Authorization, cookies and anything named like a key or
 * secret are redacted.
 */
export function loggerParams(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      // The HTTP server has already chosen the id and put it in this header.
      genReqId: (request: IncomingMessage) =>
        requestId(request.headers['x-request-id']),
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.key',
          '*.secret',
          '*.apiKey',
          '*.api_key',
          '*.password',
        ],
        censor: '[Redacted]',
      },
      serializers: {
        req: (request: {
          id: string;
          method: string;
          url: string;
          remoteAddress?: string;
        }) => ({
          id: request.id,
          method: request.method,
          url: redactUrl(request.url),
          remoteAddress: request.remoteAddress,
        }),
      },
      autoLogging: {
        ignore: (request) => request.url?.startsWith('/health') ?? false,
      },
    },
  };
}
