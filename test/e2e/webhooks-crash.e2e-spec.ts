import { DataSource } from 'typeorm';
import { createMerchant, Merchant } from '../support/factories';
import { killProcess, ZestProcess } from '../support/processes';
import { startTestApp, TestApp } from '../support/test-app';
import {
  outboxRecorder,
  startWebhookReceiver,
  startWorkerProcess,
  subscribeOrderCreated,
  WebhookReceiver,
} from '../support/worker';

const EVENTS = 200;
const KILLS = 5;

/** Polls `done` until it holds; throws once `timeoutMs` has passed. */
async function waitFor(done: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// A separate worker process needs a database server: the embedded PGlite
// belongs to the one process that opened it.
const describeWithServer = process.env.DATABASE_URL ? describe : describe.skip;

describeWithServer('webhook delivery survives a killed worker', () => {
  let t: TestApp;
  let merchant: Merchant;
  let receiver: WebhookReceiver;
  let worker: ZestProcess | null = null;
  let duplicates = 0;

  const startWorker = async () => {
    worker = await startWorkerProcess(t, {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS: '200ms*30',
      WEBHOOK_RELAY_INTERVAL_MS: '300',
      WEBHOOK_TIMEOUT_MS: '2000',
      // A killed worker's jobs are taken over within seconds, not a minute.
      QUEUE_LOCK_DURATION_MS: '4000',
    });
  };
  const killWorker = () => killProcess(worker?.child ?? null);

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    merchant = await createMerchant(t.app, ['Crash Store']);
    // A little latency, so kills also land mid-request.
    receiver = await startWebhookReceiver(30);
  });

  afterAll(async () => {
    // The figure the reliability anchor asks for; duplicates are allowed (at least once).
    process.stdout.write(
      `webhook crash test: ${duplicates} duplicate deliveries after ${KILLS} kills\n`,
    );
    await killWorker();
    await receiver?.close();
    await t?.close();
  });

  it(`delivers all ${EVENTS} events at least once across ${KILLS} SIGKILLs, duplicates identical`, async () => {
    for (const path of ['/a', '/b']) {
      await subscribeOrderCreated(
        t,
        merchant,
        receiver.url(path),
        'crash-secret',
      );
    }
    const record = await outboxRecorder(t, merchant);
    const { received } = receiver;

    // The events go out in KILLS + 1 batches. After each of the first KILLS
    // batches the worker is killed once it has delivered part of that batch,
    // so every kill lands on a busy worker. Jobs a killed worker held stay
    // locked until BullMQ's stalled check frees them (up to twice
    // QUEUE_LOCK_DURATION_MS); a kill schedule that waited on those would
    // time out.
    const batch = EVENTS / (KILLS + 1);
    await startWorker();
    let recorded = 0;
    for (let kill = 0; kill <= KILLS; kill++) {
      const before = received.length;
      const end = kill === KILLS ? EVENTS : Math.round((kill + 1) * batch);
      while (recorded < end) await record(recorded++);
      if (kill === KILLS) break;
      await waitFor(() => received.length >= before + 10, 30_000);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
      await killWorker();
      await startWorker();
    }

    const expected = EVENTS * 2;
    const deadline = Date.now() + 150_000;
    const distinct = () =>
      new Set(received.map((r) => r.headers['webhook-id'])).size;
    while (distinct() < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(distinct()).toBe(expected);
    duplicates = received.length - expected;

    // Every copy of a delivery carries the same webhook-id and the same body.
    const bodies = new Map<string, Set<string>>();
    for (const r of received) {
      const id = r.headers['webhook-id'] as string;
      bodies.set(id, (bodies.get(id) ?? new Set()).add(r.body));
    }
    for (const set of bodies.values()) expect(set.size).toBe(1);
    const numbers = new Set(
      received.map((r) => {
        const body = JSON.parse(r.body) as {
          meta: { custom_data: { n: number } };
        };
        return `${String(r.headers['webhook-id'])}:${body.meta.custom_data.n}`;
      }),
    );
    expect(numbers.size).toBe(expected);
    // The database converges too: every delivery succeeded (a worker killed
    // after sending but before recording leaves it pending until the retry).
    const statuses = () =>
      t.app
        .get(DataSource)
        .query(
          `SELECT status, count(*)::int AS count FROM webhook_deliveries GROUP BY status`,
        ) as Promise<{ status: string; count: number }[]>;
    let rows = await statuses();
    while (rows.length !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      rows = await statuses();
    }
    expect(rows).toEqual([{ status: 'succeeded', count: expected }]);
  }, 240_000);
});
