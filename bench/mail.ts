import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { CoreModule } from '../src/app/core.module';
import { loadConfig } from '../src/config/app-config';
import {
  closeDatabase,
  openDatabase,
} from '../src/database/database-connection';
import { runMigrations } from '../src/database/migrate';
import { UserService } from '../src/modules/account/user.service';
import { PriceService } from '../src/modules/catalog/price.service';
import { ProductService } from '../src/modules/catalog/product.service';
import { VariantService } from '../src/modules/catalog/variant.service';
import { CheckoutService } from '../src/modules/checkout/checkout.service';
import { PurchaseService } from '../src/modules/checkout/purchase.service';
import { StoreService } from '../src/modules/store/store.service';
import { quickstartReceiptRow } from './mail-quickstart';
import { GOOD_CARD } from './state';

/**
 * `npm run bench:mail`: how long one worker takes to render (MJML) and send
 * 1,000 order receipts, each with a license key, to a local SMTP server
 * (the nodemailer project's smtp-server, loopback, no TLS). The receipts
 * are recorded by 1,000 real purchases first (PurchaseService, as the
 * hosted checkout makes them); then `node dist/worker.js` starts alone and
 * the clock runs from its health probe's first answer to the last message
 * taken by the server (start-up is logged apart).
 * Needs PostgreSQL and Redis (DATABASE_URL, REDIS_URL; local defaults).
 *
 * First, the embedded quickstart's receipt latency (bench/mail-quickstart.ts).
 * BENCH_MAIL_ROWS=quickstart or smtp runs one of the two rows.
 */

const RECEIPTS = Number(process.env.BENCH_MAIL_RECEIPTS ?? 1000);
const BUDGET_SECONDS = 30;
const SERVER_URL =
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT = resolve(__dirname, '..', '..');
const ROWS = process.env.BENCH_MAIL_ROWS ?? 'quickstart,smtp';

function log(message: string) {
  process.stderr.write(`[bench:mail] ${message}\n`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function main() {
  let pass = true;
  if (ROWS.includes('quickstart')) {
    const quickstart = await quickstartReceiptRow(ROOT, log);
    process.stdout.write(`${quickstart.row}\n`);
    pass &&= quickstart.pass;
  }
  if (ROWS.includes('smtp')) pass = (await smtpRow()) && pass;
  process.exitCode = pass ? 0 : 1;
}

async function smtpRow(): Promise<boolean> {
  const name = `zest_bench_mail_${process.pid}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();

  let received = 0;
  let last = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received++;
        last = Date.now();
        callback();
      });
    },
  });
  const smtpPort = await freePort();
  await new Promise<void>((done) => smtp.listen(smtpPort, '127.0.0.1', done));

  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: `zest-bench-mail-${randomBytes(4).toString('hex')}`,
    APP_KEY: randomBytes(32).toString('hex'),
    MAIL_URL: `smtp://127.0.0.1:${smtpPort}`,
    MAIL_FROM: 'Bench Shop <shop@bench.test>',
    HEALTH_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
  try {
    await runMigrations(databaseUrl);
    const config = loadConfig(env);
    const database = await openDatabase(config);
    const app = await NestFactory.createApplicationContext(
      CoreModule.forRoot({ ...config, logLevel: 'warn' }, database),
      { logger: ['error', 'warn'] },
    );
    const user = await app
      .get(UserService)
      .create({ email: 'bench@bench.test', name: 'Bench' });
    const store = await app
      .get(StoreService)
      .create({ userId: user.id, name: 'Bench Shop' });
    const scope = { userId: user.id, testMode: true };
    const product = await app.get(ProductService).create(scope, store.id, {
      name: 'Bench Desktop App',
      status: 'published',
    });
    const [variant] = await app
      .get(VariantService)
      .findByFilter(scope, 'product_id', [product.id]);
    await app.get(VariantService).update(scope, variant.id, {
      has_license_keys: true,
      license_activation_limit: 5,
      is_license_length_unlimited: true,
    });
    await app
      .get(PriceService)
      .create(scope, variant.id, { category: 'one_time', unit_price: 4900 });
    const offer = await app.get(CheckoutService).offerForVariant(variant.uuid);
    const purchases = app.get(PurchaseService);
    const started = Date.now();
    for (let i = 0; i < RECEIPTS; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, RECEIPTS - i) }, (_, j) =>
          purchases.purchase(offer, {
            email: `buyer-${i + j}@bench.test`,
            name: `Buyer ${i + j}`,
            country: 'US',
            zip: '10001',
            cardNumber: GOOD_CARD,
          }),
        ),
      );
    }
    log(`${RECEIPTS} purchases in ${Date.now() - started} ms`);
    await app.close();
    await closeDatabase(database);

    const workerStart = Date.now();
    const worker = spawn(
      process.execPath,
      [
        '--max-old-space-size=256',
        ...(process.env.BENCH_MAIL_PROFILE
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_MAIL_PROFILE}`]
          : []),
        join(ROOT, 'dist', 'worker.js'),
      ],
      { env, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    // The clock starts when the worker answers its health probe: process
    // start-up (about 3 s alone, far more on a loaded machine) is not mail work.
    const health = `http://127.0.0.1:${env.HEALTH_PORT}/health/live`;
    for (;;) {
      const live = await fetch(health).then(
        (response) => response.ok,
        () => false,
      );
      if (live) break;
      if (Date.now() - workerStart > 60_000) throw new Error('worker not live');
      await new Promise((done) => setTimeout(done, 50));
    }
    const ready = Date.now();
    const before = received;
    log(
      `worker live after ${ready - workerStart} ms (${before} messages taken by then)`,
    );
    const deadline = ready + 120_000;
    let reported = ready;
    while (received < RECEIPTS && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 50));
      if (Date.now() - reported >= 5000) {
        reported = Date.now();
        log(
          `${received} received after ${((reported - workerStart) / 1000).toFixed(0)} s`,
        );
      }
    }
    worker.kill('SIGTERM');
    const seconds = (last - ready) / 1000;
    const pass = received === RECEIPTS && seconds < BUDGET_SECONDS;
    const row = `| ${RECEIPTS} order receipts (MJML + license key) sent over SMTP (1 worker, from its health probe answering) | ${received} sent | ${seconds.toFixed(1)} s | ${(received / seconds).toFixed(0)}/s | < ${BUDGET_SECONDS} s | ${pass ? 'PASS' : 'FAIL'} |`;
    process.stdout.write(`${row}\n`);
    await new Promise((done) => worker.once('exit', done));
    return pass;
  } finally {
    smtp.close(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
