import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { WEBHOOK_DELIVERY_QUEUE } from '../../src/modules/webhooks/webhook-delivery.queue';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import {
  outboxRecorder,
  startTestWorker,
  subscribeOrderCreated,
  TestWorker,
} from '../support/worker';

interface Arrival {
  path: string;
  n: number;
  at: number;
}

/** Polls `done` until it holds; throws once `deadline` (epoch ms) has passed. */
async function waitUntil(
  done: () => boolean | Promise<boolean>,
  deadline: number,
  what: string,
) {
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not by the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A job added to a queue that holds a delayed job runs at once, not when the
 * delayed job is due. The case: a webhook whose receiver failed has its
 * retry a minute away in the delivery queue, and a new event for another
 * webhook must not wait for it. With Redis BullMQ's markers wake the worker;
 * on the embedded database its LISTEN/NOTIFY, which PGlite's multiplexer
 * routes to the listening connection (src/database/pglite-notifications.ts).
 */
describe('a queue that holds a delayed job', () => {
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let receiver: Server;
  const arrivals: Arrival[] = [];

  const url = (path: string) =>
    `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${path}`;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const event = JSON.parse(body) as {
          meta: { custom_data: { n: number } };
        };
        arrivals.push({
          path: req.url ?? '/',
          n: event.meta.custom_data.n,
          at: Date.now(),
        });
        res.writeHead(req.url === '/failing' ? 500 : 200).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS: '60s*3',
    });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Wake-up Store']);
  });

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("delivers a new event before the failed delivery's retry is due", async () => {
    await subscribeOrderCreated(t, merchant, url('/failing'), 'secret-one');
    const record = await outboxRecorder(t, merchant);
    await record(1);
    await waitUntil(
      () => arrivals.some((a) => a.path === '/failing' && a.n === 1),
      Date.now() + 30_000,
      'first attempt of event 1',
    );
    const queue = t.app.get<Queue>(getQueueToken(WEBHOOK_DELIVERY_QUEUE));
    await waitUntil(
      async () => (await queue.getDelayedCount()) === 1,
      Date.now() + 30_000,
      'retry of event 1 queued',
    );
    const [retry] = await queue.getDelayed();
    const retryDueAt = retry.timestamp + retry.delay;
    expect(retryDueAt - Date.now()).toBeGreaterThan(30_000);

    await subscribeOrderCreated(t, merchant, url('/ok'), 'secret-two');
    await record(2);
    await waitUntil(
      () => arrivals.some((a) => a.path === '/ok' && a.n === 2),
      retryDueAt,
      'event 2 delivered before the retry of event 1 was due',
    );
    // The retry is still waiting for its time: nothing promoted it early.
    expect(
      arrivals.filter((a) => a.path === '/failing' && a.n === 1),
    ).toHaveLength(1);
    expect(await queue.getDelayedCount()).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
