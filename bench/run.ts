import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  cleanRedis,
  dropDatabase,
  recreateDatabase,
  seed,
  settle,
} from './harness/database';
import { compareOutputs } from './harness/measure';
import {
  API_ENV,
  API_NODE_ARGS,
  APP_KEY,
  args,
  DATABASE_URL,
  DB_NAME,
  DIST_BENCH,
  GROUPS,
  ONLY,
  PORTS,
  PREFIX,
  PROFILE_ARGS,
  QUICK,
  ROOT,
  runs,
  FILES_ONLY,
  SIZES,
  STATE,
  zestEnv,
} from './harness/options';
import {
  children,
  log,
  memory,
  start,
  stop,
  waitFor,
} from './harness/processes';
import { render } from './harness/table';
import { embeddedRows } from './rows/embedded';
import { TWIN_PREFIX } from './rows/embedded-servers';
import { files } from './rows/files';
import { addGrowthRows, growth, type Growth } from './rows/growth';
import { licenses, purchases } from './rows/purchases';
import { ordersPage, reads, realLimiter } from './rows/reads';
import { usageBatches, usageRecords } from './rows/usage';
import { webhooks } from './rows/webhooks';
import type { BenchState } from './state';

/**
 * `npm run bench`: Zest (API + worker) and the bare baseline side by side on
 * a fresh database, driven by autocannon from separate processes. See
 * docs/performance.md for what each row means and the latest figures.
 *
 *   --quick          small seed, 2 s runs: checks the harness itself
 *   --rounds <n>     A B rounds for the side-by-side rows (default 3)
 *   --duration <s>   seconds per run (default 10; quick 2)
 *   --million        also grow to 1,000,000 orders (bulk import) for the last growth row
 *   --bulk-growth    grow to the main size (100,000 orders) by bulk import too, not by
 *                    purchases (hours on a loaded machine); the rows read the same orders
 *   --keep           leave the benchmark database in place afterwards
 *   --reuse <file>   skip the seed: use the database a failed or --keep run left and its
 *                    state file (logged at start); the smallest growth row is then missing
 *   --only <groups>  run only these (comma-separated): reads, limiter, usage, purchases,
 *                    licenses, webhooks, files, growth, embedded
 *   --file-gib <n>   size of the file row's upload (default 2; quick 0.25)
 *   --profile        run the API and the worker with --cpu-prof; profiles go to bench/results/profiles
 *
 * Rows added in session 15 (docs/performance.md, "Session 15: new rows"):
 *   usage      POST /v1/usage-records in batches of 1,000 (records/s ≥ 10,000,
 *              current-usage exact afterwards); the single-record row's budget is 2,500/s
 *   reads      the deep page's row also needs p50 ≤ 3× page 1's
 *   growth     at each size also the deep page (page[number] at half the list) and
 *              page[after] at the same depth, each p50 ≤ 3× page 1's
 *   embedded   Zest as `npm start` runs it (PGlite, workers in process, DATA_DIR in a
 *              temp dir) against a PostgreSQL twin, both seeded the same way through
 *              their APIs: product reads and orders page 1 (≥ 0.30× PostgreSQL), JSON
 *              purchases and usage records (ratios; no errors, totals exact)
 */

/** The groups that run on the main database (all but `embedded`). */
const MAIN_GROUPS = GROUPS.filter((group) => group !== 'embedded');

async function main() {
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const loadBefore = loadavg();
  log(`load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);

  const apiPeak = MAIN_GROUPS.some(runs) ? await mainRun() : null;
  if (runs('embedded')) await embeddedRows();

  const loadAfter = loadavg();
  log(`load average after: ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
  const table = render(apiPeak, loadBefore, loadAfter);
  process.stdout.write(`${table}\n`);
  const out =
    args.out ??
    join(
      ROOT,
      'bench',
      'results',
      // latest.md holds the last full run, the one docs/performance.md quotes.
      QUICK ? 'quick.md' : ONLY ? 'partial.md' : 'latest.md',
    );
  writeFileSync(out, `${table}\n`);
  log(`written to ${out}`);
}

/**
 * Every group but `embedded`, on the main database: the seed, the API, the
 * worker and the baseline. Answers the API's peak RSS (NaN if it died).
 */
async function mainRun(): Promise<number> {
  log(`state file: ${STATE}`);
  let started = Date.now();
  let state: BenchState;
  if (args.reuse) {
    state = JSON.parse(readFileSync(STATE, 'utf8')) as BenchState;
  } else {
    await recreateDatabase(DB_NAME);
    const migrate = spawnSync(
      process.execPath,
      [join(ROOT, 'dist', 'cli.js'), 'migrate', '--json'],
      {
        env: zestEnv(PORTS.api),
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    if (migrate.status !== 0) throw new Error('migrations failed');

    state = await seed([
      '--products',
      String(SIZES.products),
      '--orders',
      String(SIZES.small),
    ]);
    log(
      `catalog and ${SIZES.small} orders seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  }

  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const api = start(
    'api',
    join(ROOT, 'dist', 'main.js'),
    API_ENV,
    false,
    API_NODE_ARGS,
  );
  const worker = start(
    'worker',
    join(ROOT, 'dist', 'worker.js'),
    API_ENV,
    false,
    PROFILE_ARGS,
  );
  const baseline = start(
    'baseline',
    join(DIST_BENCH, 'baseline', 'server.js'),
    {
      PATH: process.env.PATH ?? '',
      DATABASE_URL,
      PORT: String(PORTS.baseline),
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORTS.baseline}`,
      CHECKOUT_BASE_URL: `http://127.0.0.1:${PORTS.api}`,
      APP_KEY,
      BENCH_USER_ID: String(state.userId),
      BENCH_TEST_MODE: 'true',
    },
  );
  await waitFor(`http://127.0.0.1:${PORTS.api}/health/live`);
  await waitFor(`http://127.0.0.1:${PORTS.health}/health/live`);
  await waitFor(`http://127.0.0.1:${PORTS.baseline}/v1/products/0`);
  await settle(db);

  const growthRows: Growth[] =
    args.reuse || !runs('growth')
      ? []
      : [await growth(SIZES.small, state, api)];

  if (!FILES_ONLY) {
    started = Date.now();
    state = await seed([
      '--orders',
      String(SIZES.main),
      ...(args['bulk-growth'] ? ['--bulk'] : []),
    ]);
    log(
      `grown to ${SIZES.main} orders in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    await settle(db);
  }

  const page = (n: number) => ordersPage(state, n);
  const productPaths = state.productIds
    .filter((_, i) => i % Math.ceil(state.productIds.length / 200) === 0)
    .map((id) => `/v1/products/${id}`);
  const deepPage = Math.floor(SIZES.main / 10 / 2);
  if (!FILES_ONLY)
    await compareOutputs(state, [
      productPaths[0],
      productPaths[1],
      page(1),
      page(deepPage),
      `/v1/orders/${state.orderIds[0]}`,
      '/v1/products?include=variants',
    ]);

  if (runs('reads')) await reads(state, api, baseline, productPaths, page);
  if (runs('limiter')) await realLimiter(state, productPaths);
  if (runs('usage')) {
    await usageRecords(state, api);
    await usageBatches(state, api);
  }
  if (runs('purchases')) await purchases(state, api);
  if (runs('licenses')) await licenses(state, api);
  if (runs('webhooks')) await webhooks(state, worker);
  if (runs('files')) await files(state);

  if (runs('growth')) {
    growthRows.push(await growth(SIZES.main, state, api));
    if (args.million) {
      started = Date.now();
      state = await seed(['--orders', String(SIZES.large), '--bulk']);
      log(
        `grown to ${SIZES.large} orders in ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
      await settle(db);
      growthRows.push(await growth(SIZES.large, state, api));
    }
  }
  addGrowthRows(growthRows, args.reuse !== undefined);

  // A dead API reads as 0 MiB: that must not pass.
  const apiPeak =
    api.exitCode === null && api.signalCode === null
      ? memory(api.pid).hwm
      : NaN;
  await Promise.all([stop(api), stop(worker), stop(baseline)]);
  await db.end();
  if (!args.keep) await dropDatabase(DB_NAME);
  return apiPeak;
}

async function cleanup() {
  await Promise.all([...children].map(stop));
  for (const prefix of [PREFIX, TWIN_PREFIX])
    await cleanRedis(prefix).catch(() => undefined);
}

process.once('SIGINT', () => {
  void cleanup().then(() => process.exit(130));
});

main().then(
  () => cleanup().then(() => process.exit(0)),
  (error: unknown) => {
    log(
      error instanceof Error ? (error.stack ?? error.message) : String(error),
    );
    void cleanup().then(() => process.exit(1));
  },
);
