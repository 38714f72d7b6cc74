import 'reflect-metadata';
import { createServer } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { closeOnSignals } from './app/shutdown';
import { withQuietStartUp } from './app/logging';
import { WorkerModule } from './app/worker.module';
import { loadConfig } from './config/app-config';
import { openDatabase } from './database/database-connection';
import { HealthService } from './http/health/health.service';
import { metricsAccess } from './metrics/metrics-access';
import { MetricsService } from './metrics/metrics.service';

/**
 * The worker process: BullMQ processors and a health listener (with
 * `/metrics`), nothing else.
 * It needs DATABASE_URL: the embedded database belongs to the single process
 * that `npm start` runs.
 */
async function main() {
  const config = loadConfig();
  if (!config.database.url) {
    throw new Error(
      'The worker needs DATABASE_URL. With the embedded database, `npm start` runs the workers in-process.',
    );
  }
  const database = await openDatabase(config);
  const app = await NestFactory.createApplicationContext(
    WorkerModule.forRoot(config, database),
    { bufferLogs: true },
  );
  const logger = app.get(Logger);
  app.useLogger(withQuietStartUp(logger));
  const health = app.get(HealthService);
  const metrics = app.get(MetricsService);
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify(body));
    };
    const path = request.url?.split('?')[0];
    if (request.method !== 'GET')
      return send(405, { status: 'method not allowed' });
    if (request.url === '/health/live') return send(200, { status: 'ok' });
    if (request.url === '/health/ready') {
      health.readiness().then(
        (readiness) =>
          send(readiness.ready ? 200 : 503, {
            status: readiness.ready ? 'ok' : 'unavailable',
            checks: readiness.checks,
          }),
        () => send(503, { status: 'unavailable' }),
      );
      return;
    }
    if (path === '/metrics') {
      const access = metricsAccess(
        config.metricsToken,
        request.headers.authorization,
      );
      if (access === 'disabled') return send(404, { status: 'not found' });
      if (access === 'unauthorized') {
        response.setHeader('www-authenticate', 'Bearer realm="metrics"');
        return send(401, { status: 'unauthorized' });
      }
      metrics.exposition().then(
        ({ contentType, body }) =>
          response
            .writeHead(200, {
              'content-type': contentType,
              'cache-control': 'no-store',
            })
            .end(body),
        () => send(500, { status: 'metrics unavailable' }),
      );
      return;
    }
    send(404, { status: 'not found' });
  });
  await new Promise<void>((resolve) =>
    server.listen(config.http.healthPort, config.http.host, resolve),
  );
  const close = async () => {
    server.close();
    await app.close();
  };
  closeOnSignals(close, database, config);
  logger.log(
    `Worker running; health on http://${config.http.host}:${config.http.healthPort}/health/ready`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
