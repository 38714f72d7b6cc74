import { once } from 'node:events';
import { createServer, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { INestApplicationContext, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { WorkerModule } from '../../src/app/worker.module';
import { Transactions } from '../../src/database/transactions';
import { StoreService } from '../../src/modules/store/store.service';
import { Outbox } from '../../src/modules/webhooks/outbox';
import { Merchant } from './factories';
import { startZestWorker, ZestProcess } from './processes';
import { TEST_APP_KEY, TestApp } from './test-app';

export interface TestWorker {
  /** The process that runs the processors: a separate worker, or the embedded app itself. */
  context: INestApplicationContext;
  close(): Promise<void>;
}

/**
 * The processors for a test app. With a PostgreSQL server they run in a
 * worker context of their own (as `src/worker.ts` runs them); on the embedded
 * database the API app already runs them in-process, as `npm start` does.
 */
export async function startTestWorker(
  t: TestApp,
  logger?: LoggerService,
): Promise<TestWorker> {
  if (t.database.embedded) {
    return { context: t.app, close: () => Promise.resolve() };
  }
  const context = await NestFactory.createApplicationContext(
    WorkerModule.forRoot(t.config, t.database),
    { logger: logger ?? false },
  );
  if (logger) context.useLogger(logger);
  await context.init();
  return { context, close: () => context.close() };
}

/**
 * `node dist/worker.js` over the test app's database and queue, as its own
 * process (so it can be killed). Needs a database server: the embedded
 * PGlite belongs to the process that opened it.
 */
export function startWorkerProcess(
  t: TestApp,
  env: Record<string, string> = {},
): Promise<ZestProcess> {
  return startZestWorker({
    NODE_ENV: 'test',
    DATABASE_URL: t.config.database.url!,
    ...(t.config.queue.redisUrl ? { REDIS_URL: t.config.queue.redisUrl } : {}),
    QUEUE_PREFIX: t.config.queue.prefix,
    APP_KEY: TEST_APP_KEY,
    LOG_LEVEL: 'silent',
    ...env,
  });
}

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** Every request so far, in arrival order. */
  received: Delivery[];
  url(path: string): string;
  close(): Promise<void>;
}

/** A local webhook endpoint that answers 200 to everything, after up to `maxDelayMs`. */
export async function startWebhookReceiver(
  maxDelayMs = 0,
): Promise<WebhookReceiver> {
  const received: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = () => res.writeHead(200).end('ok');
      if (maxDelayMs > 0) setTimeout(answer, Math.random() * maxDelayMs);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A webhook of the merchant's first store for `order_created`, over the API. */
export async function subscribeOrderCreated(
  t: TestApp,
  merchant: Merchant,
  url: string,
  secret: string,
): Promise<void> {
  await request(t.baseUrl)
    .post('/v1/webhooks')
    .set('Authorization', `Bearer ${merchant.testKey}`)
    .set('Content-Type', 'application/vnd.api+json')
    .send(
      JSON.stringify({
        data: {
          type: 'webhooks',
          attributes: { url, events: ['order_created'], secret },
          relationships: {
            store: {
              data: { type: 'stores', id: String(merchant.stores[0].id) },
            },
          },
        },
      }),
    )
    .expect(201);
}

/**
 * Commits numbered `order_created` events of the merchant's first store
 * straight to the outbox (the store as their resource, `custom_data: {n}`):
 * many events without building orders.
 */
export async function outboxRecorder(
  t: TestApp,
  merchant: Merchant,
): Promise<(n: number) => Promise<void>> {
  const storeId = merchant.stores[0].id;
  const store = (await t.app
    .get(StoreService)
    .findOne(
      { userId: merchant.userId, apiKeyId: 0, testMode: true },
      storeId,
    ))!;
  return (n) =>
    t.app.get(Transactions).run((manager) =>
      t.app.get(Outbox).record(manager, {
        name: 'order_created',
        storeId,
        testMode: true,
        resource: 'stores',
        record: store,
        customData: { n },
      }),
    );
}

/** A Nest logger that keeps every line, to check what reaches the logs. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];

  private keep(level: string, args: unknown[]) {
    this.lines.push(
      `${level} ${args
        .map((a) =>
          a instanceof Error ? `${a.message} ${a.stack}` : JSON.stringify(a),
        )
        .join(' ')}`,
    );
  }

  log(...args: unknown[]) {
    this.keep('log', args);
  }
  error(...args: unknown[]) {
    this.keep('error', args);
  }
  warn(...args: unknown[]) {
    this.keep('warn', args);
  }
  debug(...args: unknown[]) {
    this.keep('debug', args);
  }
  verbose(...args: unknown[]) {
    this.keep('verbose', args);
  }
}
