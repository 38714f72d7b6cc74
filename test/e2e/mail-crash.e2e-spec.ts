import { DataSource } from 'typeorm';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { killProcess, ZestProcess } from '../support/processes';
import { startSmtpServer, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { startWorkerProcess } from '../support/worker';

const PURCHASES = 120;
const KILLS = 3;
const CONCURRENCY = 4;

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

describeWithServer('mail survives a worker SIGKILLed mid-batch', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let merchant: Merchant;
  let worker: ZestProcess | null = null;
  let duplicates = 0;

  const startWorker = async () => {
    worker = await startWorkerProcess(t, {
      MAIL_URL: smtp.url,
      MAIL_CONCURRENCY: String(CONCURRENCY),
      MAIL_TIMEOUT_MS: '1000',
      MAIL_SWEEP_INTERVAL_MS: '300',
      MAIL_RETRY_DELAYS: '200ms*30',
      // A killed worker's jobs are taken over within seconds, not a minute.
      QUEUE_LOCK_DURATION_MS: '4000',
    });
  };
  const killWorker = () => killProcess(worker?.child ?? null);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // Kills also land between the server taking a message and its reply.
    smtp.behaviour.maxReplyDelayMs = 30;
    t = await startTestApp({ MAIL_URL: smtp.url });
    merchant = await createMerchant(t.app, ['Crash Mail Store']);
  });

  afterAll(async () => {
    process.stdout.write(
      `mail crash test: ${duplicates} duplicate messages after ${KILLS} kills (${CONCURRENCY} in flight at most per kill)\n`,
    );
    await killWorker();
    await t?.close();
    await smtp?.stop();
  });

  it(`sends all ${PURCHASES} receipts across ${KILLS} SIGKILLs; a duplicate only for a message in flight, with the same Message-ID and content`, async () => {
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);
    const { received } = smtp;
    const batch = PURCHASES / (KILLS + 1);
    let bought = 0;
    await startWorker();
    for (let kill = 0; kill <= KILLS; kill++) {
      const before = received.length;
      const end = Math.round((kill + 1) * batch);
      while (bought < end) {
        const size = Math.min(10, end - bought);
        const answers = await Promise.all(
          Array.from({ length: size }, (_, i) =>
            buy(t.baseUrl, url, { email: `buyer-${bought + i}@example.com` }),
          ),
        );
        for (const answer of answers) expect(answer.status).toBe(201);
        bought += size;
      }
      if (kill === KILLS) break;
      await waitFor(() => received.length >= before + 5, 30_000);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      await killWorker();
      await startWorker();
    }

    const messageIds = () =>
      new Set(received.map((mail) => mail.parsed.messageId));
    await waitFor(() => messageIds().size >= PURCHASES, 120_000);
    expect(messageIds().size).toBe(PURCHASES);
    // Every buyer got the receipt.
    const recipients = new Set(received.flatMap((mail) => mail.envelopeTo));
    expect(recipients.size).toBe(PURCHASES);
    duplicates = received.length - PURCHASES;
    expect(duplicates).toBeLessThanOrEqual(KILLS * CONCURRENCY);
    // A duplicate is the same message: same Message-ID, same content.
    const bodies = new Map<string, Set<string>>();
    for (const mail of received) {
      const id = String(mail.parsed.messageId);
      bodies.set(
        id,
        (bodies.get(id) ?? new Set()).add(
          `${mail.parsed.subject}\n${mail.parsed.text}`,
        ),
      );
    }
    for (const set of bodies.values()) expect(set.size).toBe(1);

    // The database converges: every message sent, none still claimed.
    const statuses = () =>
      t.app
        .get(DataSource)
        .query(
          `SELECT status, count(*)::int AS count FROM mail_messages GROUP BY status`,
        ) as Promise<{ status: string; count: number }[]>;
    const deadline = Date.now() + 60_000;
    let rows = await statuses();
    while (
      JSON.stringify(rows) !==
        JSON.stringify([{ status: 'sent', count: PURCHASES }]) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      rows = await statuses();
    }
    expect(rows).toEqual([{ status: 'sent', count: PURCHASES }]);
  }, 300_000);
});
