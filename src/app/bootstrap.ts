import { IncomingMessage } from 'node:http';
import { DynamicModule, Type } from '@nestjs/common';
import fastifyMultipart from '@fastify/multipart';
import { NestFactory } from '@nestjs/core';
import {
  FastifyAdapter,
  NestFastifyApplication,
} from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppConfig } from '../config/app-config';
import { DatabaseConnection } from '../database/database-connection';
import { installIdempotency } from '../http/idempotency/idempotency.interceptor';
import { IdempotencyService } from '../http/idempotency/idempotency.service';
import { RouteTable } from '../http/json-api/route-table';
import { RateLimitStore } from '../http/rate-limit/rate-limit.store';
import { applyRoutePolicies } from '../http/route-policies';
import { installConnectionDrain } from '../http/transport/connection-drain';
import { OpenApiService } from '../http/openapi/openapi.service';
import {
  frameworkErrorHandler,
  installBodyParsers,
  installQueryCheck,
} from '../http/transport/body-parsers';
import { installTransportPolicy } from '../http/transport/transport-policy';
import { installRequestMetrics } from '../http/metrics/request-metrics';
import { MetricsService } from '../metrics/metrics.service';
import { installAccessLog, requestId, withQuietStartUp } from './logging';
import { ApiModule } from './api.module';

/** The request body limit; larger bodies are refused with 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Builds the HTTP application exactly as production runs it. Tests call this
 * too, so they exercise the same parsers, guards and filters.
 */
export async function createApiApp(
  config: AppConfig,
  database: DatabaseConnection,
  options: {
    withProcessors: boolean;
    /** Tests only: modules with controllers of their own (e.g. a POST route to exercise). */
    extraModules?: (Type | DynamicModule)[];
  },
): Promise<NestFastifyApplication> {
  const routes = new RouteTable();
  const adapter = new FastifyAdapter({
    genReqId: (raw: IncomingMessage) => requestId(raw.headers['x-request-id']),
    trustProxy: config.http.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler,
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRoute', (route) =>
    routes.add(route.method, route.url, route.config),
  );
  // One request id for the response header and the log line.
  fastify.addHook('onRequest', async (request, reply) => {
    request.raw.headers['x-request-id'] = request.id;
    void reply.header('X-Request-Id', request.id);
  });
  // JSON:API, JSON and form bodies: strict UTF-8, no NUL, bounded depth and numbers.
  installBodyParsers(adapter, BODY_LIMIT_BYTES);
  installQueryCheck(fastify);
  // Bodies are JSON:API, JSON or form fields; anything else is a 415.
  fastify.removeContentTypeParser('text/plain');
  installTransportPolicy(fastify, config);
  installConnectionDrain(fastify);
  installAccessLog(fastify);
  installIdempotency(fastify);
  installRequestMetrics(fastify, () => app.get(MetricsService));

  const app = await NestFactory.create<NestFastifyApplication>(
    ApiModule.forRoot(config, database, {
      withProcessors: options.withProcessors,
      routes,
      extraModules: options.extraModules ?? [],
    }),
    adapter,
    { bufferLogs: true },
  );
  app.useLogger(withQuietStartUp(app.get(Logger)));
  // Uploads (POST /v1/files) stream; only the file part may be large.
  await app.register(fastifyMultipart, {
    limits: {
      // One byte over: FileService's own check sees the overflow and refuses it
      // (the plugin would otherwise end the stream at the limit, silently).
      fileSize: config.storage.fileMaxBytes + 1,
      files: 1,
      fields: 1,
      fieldSize: 64 * 1024,
      parts: 2,
      headerPairs: 100,
    },
  });
  // The store exists once Nest has built the module graph.
  fastify.idempotency = app.get(IdempotencyService);
  applyRoutePolicies(app);
  app.get(OpenApiService).attach(app);
  await app.init();
  // Only the API counts requests: the worker's store never connects.
  app.get(RateLimitStore).open();
  return app;
}
