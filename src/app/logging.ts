import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { LoggerService } from '@nestjs/common';
import { Params, PinoLogger } from 'nestjs-pino';
import { AppConfig } from '../config/app-config';
import { errorCodesOf } from '../http/errors/error-codes-log';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token, else a new UUID. */
export function requestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given)
    ? given
    : randomUUID();
}

/**
 * Query parameters whose values may be logged: paging, sorting, includes and
 * filters other than e-mail addresses. Every other value is replaced, so a
 * signed link's signature, an API key sent as `?api_key=`, and a buyer's
 * name or address sent to generate-invoice never reach the logs, whatever
 * the parameter is called.
 */
const LOGGABLE_PARAMETER =
  /^(page(\[|%5B)[a-z_]+(\]|%5D)|sort|include|fields(\[|%5B)[a-z_-]+(\]|%5D)|filter(\[|%5B)(?![a-z_]*email)[a-z_]+(\]|%5D))$/i;
const CREDENTIAL_VALUE = /zest_(test|live)_/i;

/** The request URL as the logs may keep it: its path and its harmless query values. */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const split = pair.indexOf('=');
      const name = split < 0 ? pair : pair.slice(0, split);
      const value = split < 0 ? '' : pair.slice(split + 1);
      return LOGGABLE_PARAMETER.test(name) && !CREDENTIAL_VALUE.test(value)
        ? pair
        : `${CREDENTIAL_VALUE.test(name) ? '[Redacted]' : name}=[Redacted]`;
    });
  return `${url.slice(0, start)}?${query.join('&')}`;
}

/**
 * The application's pino logger (nestjs-pino's root): level, and redaction of
 * Authorization, cookies, anything named like a key or secret, and the
 * values of failed queries. Its
 * pino-http middleware is mounted on no route: that middleware ran two
 * middie middlewares and an AsyncLocalStorage context per request, about 7 %
 * of the API's throughput on reads. `installAccessLog` writes the request
 * lines instead; log lines written during a request name its id themselves
 * where it matters (the error filter's do).
 */
export function loggerParams(config: AppConfig): Params {
  return {
    forRoutes: [],
    pinoHttp: {
      level: config.logLevel,
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
          // A failed query's values (TypeORM's QueryFailedError) and
          // PostgreSQL's detail ("Key (email)=(…) already exists"): a
          // buyer's e-mail, name or address in an error log line.
          'err.parameters',
          'err.detail',
          'err.driverError.detail',
          'err.cause.parameters',
          'err.cause.detail',
        ],
        censor: '[Redacted]',
      },
    },
  };
}

/**
 * One JSON line per request once it is answered ("request completed", or
 * "request errored" at error level for a 5xx), with the request id that is
 * echoed as X-Request-Id. No headers are logged, and the query keeps only
 * harmless values (`redactUrl`). A failed request's line names the error
 * codes it was answered with (`errorCodes`). Health probes and metrics
 * scrapes are not logged.
 */
export function installAccessLog(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const failed = reply.statusCode >= 500;
    const logger = PinoLogger.root;
    if (
      logger?.isLevelEnabled(failed ? 'error' : 'info') &&
      !request.url.startsWith('/health') &&
      !request.url.startsWith('/metrics')
    ) {
      // Flat fields: pino-http's req/res serializers expect raw Node objects.
      const line = {
        reqId: request.id,
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime),
        errorCodes: errorCodesOf(request),
      };
      if (failed) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    }
    done();
  });
}

/**
 * Nest's start-up bookkeeping: one line per module and per route (about 160
 * on the API). Useful when debugging wiring, noise in a normal start.
 */
const START_UP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
]);

/** The application logger with Nest's start-up bookkeeping at `debug`. */
export function withQuietStartUp(logger: LoggerService): LoggerService {
  const quiet = (
    level: 'log' | 'verbose',
    message: unknown,
    optional: unknown[],
  ) => {
    const context = optional[optional.length - 1];
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context))
      return logger.debug?.(message, ...optional);
    return logger[level]?.(message, ...optional);
  };
  return {
    log: (message, ...optional) => quiet('log', message, optional),
    verbose: (message, ...optional) => quiet('verbose', message, optional),
    error: (message, ...optional) => logger.error(message, ...optional),
    warn: (message, ...optional) => logger.warn(message, ...optional),
    debug: (message, ...optional) => logger.debug?.(message, ...optional),
    fatal: (message, ...optional) => logger.fatal?.(message, ...optional),
  };
}
