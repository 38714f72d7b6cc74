import { ChildProcess, fork, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { fileRows } from './files';
import type { LoadResult, LoadSpec } from './load';
import type { BenchState } from './state';
import { GOOD_CARD } from './state';

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
 *                    licenses, webhooks, files, growth
 *   --file-gib <n>   size of the file row's upload (default 2; quick 0.25)
 *   --profile        run the API and the worker with --cpu-prof; profiles go to bench/results/profiles
 */

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    million: { type: 'boolean' },
    'bulk-growth': { type: 'boolean' },
    keep: { type: 'boolean' },
    reuse: { type: 'string' },
    out: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean' },
    'file-gib': { type: 'string' },
  },
});

const GROUPS = [
  'reads',
  'limiter',
  'usage',
  'purchases',
  'licenses',
  'webhooks',
  'files',
  'growth',
] as const;
const ONLY = args.only?.split(',').map((group) => group.trim());
const unknownGroup = ONLY?.find(
  (group) => !(GROUPS as readonly string[]).includes(group),
);
if (unknownGroup !== undefined)
  throw new Error(
    `--only: unknown group ${JSON.stringify(unknownGroup)} (groups: ${GROUPS.join(', ')})`,
  );
const runs = (group: (typeof GROUPS)[number]) =>
  ONLY === undefined || ONLY.includes(group);

const QUICK = args.quick === true;
const ROUNDS = Number(args.rounds ?? 3);
const DURATION = Number(args.duration ?? (QUICK ? 2 : 10));
/** Only the file rows: they need a variant, not a grown database. */
const FILES_ONLY = ONLY !== undefined && ONLY.every((g) => g === 'files');
const SIZES =
  QUICK || FILES_ONLY
    ? { products: 300, small: 1_000, main: 5_000, large: 20_000 }
    : { products: 10_000, small: 10_000, main: 100_000, large: 1_000_000 };
const ROOT = resolve(__dirname, '..', '..');
const DIST_BENCH = resolve(__dirname);
const PG_ADMIN =
  process.env.BENCH_PG_ADMIN ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = process.env.BENCH_DB ?? 'zest_bench';
const DATABASE_URL = PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `zest-bench-${process.pid}`;
const STATE =
  args.reuse ??
  join(process.env.BENCH_TMP ?? '/tmp', `zest-bench-${process.pid}.json`);
const PORTS = {
  api: 3900,
  limited: 3901,
  baseline: 3902,
  receiver: 3903,
  health: 3904,
  unprepared: 3905,
  files: 3906,
};
const APP_KEY = 'bench-app-key-bench-app-key-bench-app-key';
const UNLIMITED = '1000000000';

const children = new Set<ChildProcess>();

function log(message: string) {
  process.stderr.write(`[bench] ${message}\n`);
}

function zestEnv(port: number, extra: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    REQUIRE_HTTPS: 'false',
    // The purchase scenarios measure the API; e-mail has its own scenario.
    MAIL_DISABLED: 'true',
    DATABASE_URL,
    REDIS_URL,
    QUEUE_PREFIX: PREFIX,
    APP_KEY,
    HOST: '127.0.0.1',
    PORT: String(port),
    HEALTH_PORT: String(PORTS.health),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    CHECKOUT_BASE_URL: `http://127.0.0.1:${PORTS.api}`,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...extra,
  };
}

/**
 * The API with the per-key and per-IP limits raised out of the way (the
 * limiter still runs), otherwise as Zest ships: its hot statements prepared.
 */
const UNLIMITED_ENV = {
  RATE_LIMIT_PER_MINUTE: UNLIMITED,
  LICENSE_RATE_LIMIT_PER_MINUTE: UNLIMITED,
  AUTH_FAILURE_LIMIT_PER_MINUTE: UNLIMITED,
  // The public routes' limits (per client IP and per checkout): the
  // purchases row sends every request from one address.
  PAGE_RATE_LIMIT_PER_MINUTE: UNLIMITED,
  PURCHASE_RATE_LIMIT_PER_MINUTE: UNLIMITED,
  CHECKOUT_RATE_LIMIT_PER_MINUTE: UNLIMITED,
};
const API_ENV = zestEnv(PORTS.api, UNLIMITED_ENV);

/**
 * The API for the budgeted side-by-side rows: the bare baseline sends every
 * statement unprepared, as `pg` does by default, so these rows compare like
 * with like; one more row measures Zest's default against the same baseline.
 */
const UNPREPARED_ENV = {
  ...UNLIMITED_ENV,
  DATABASE_PREPARED_STATEMENTS: 'false',
};

const PROFILE_ARGS = args.profile
  ? [
      '--cpu-prof',
      `--cpu-prof-dir=${join(ROOT, 'bench', 'results', 'profiles')}`,
    ]
  : [];

/** As production starts the API (docker/Dockerfile, `npm run start:api`): V8's old space capped. */
const API_NODE_ARGS = [
  '--max-old-space-size=128',
  '--max-semi-space-size=16',
  ...PROFILE_ARGS,
];

function start(
  name: string,
  script: string,
  env: Record<string, string>,
  ipc = false,
  nodeArgs: string[] = [],
): ChildProcess {
  const child = ipc
    ? fork(script, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, [...nodeArgs, script], {
        env,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
  children.add(child);
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (code !== 0 && signal === null) log(`${name} exited with ${code}`);
  });
  return child;
}

/** A second API process on `port` for one scenario, once it answers. */
async function startExtraApi(
  name: string,
  port: number,
  extra: Record<string, string>,
): Promise<ChildProcess> {
  const child = start(
    name,
    join(ROOT, 'dist', 'main.js'),
    zestEnv(port, extra),
    false,
    API_NODE_ARGS,
  );
  await waitFor(`http://127.0.0.1:${port}/health/live`);
  return child;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

async function waitFor(url: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await sleep(200);
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function message<T>(child: ChildProcess, type?: string): Promise<T> {
  return new Promise((done, fail) => {
    const onMessage = (value: T & { type?: string }) => {
      if (type && value.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      done(value);
    };
    const onExit = (code: number) =>
      fail(new Error(`child exited (${code}) before answering`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Resident set size now and the high-water mark, in MiB, from /proc. */
function memory(pid: number | undefined): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

interface Measured extends LoadResult {
  peakRssMiB: number;
  /** Share of the machine's CPU time the hypervisor gave to others during the run. */
  stealPercent: number;
}

/** The machine's CPU time so far, in ticks: all of it and the stolen part. */
function cpuTicks(): { total: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/**
 * Steal since `from`, in percent: on a shared virtual machine it tells a slow
 * run from a slow build (the figures of one hour moved by 2× with it).
 */
function stealSince(from: { total: number; steal: number }): number {
  const now = cpuTicks();
  const total = now.total - from.total;
  return total > 0 ? (100 * (now.steal - from.steal)) / total : 0;
}

async function load(spec: LoadSpec, server: ChildProcess): Promise<Measured> {
  const child = start(
    'load',
    join(DIST_BENCH, 'load.js'),
    { PATH: process.env.PATH ?? '' },
    true,
  );
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memory(server.pid).rss);
  }, 100);
  const ticks = cpuTicks();
  try {
    const answer = message<LoadResult>(child);
    child.send(spec);
    const result = await answer;
    return {
      ...result,
      peakRssMiB: Math.max(peak, memory(server.pid).rss),
      stealPercent: stealSince(ticks),
    };
  } finally {
    clearInterval(sampler);
  }
}

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function medianOf(results: Measured[]): Measured {
  const pick = (key: keyof Measured) =>
    median(results.map((r) => r[key] as number));
  return {
    ...results[0],
    requestsPerSecond: pick('requestsPerSecond'),
    okPerSecond: pick('okPerSecond'),
    p50: pick('p50'),
    p99: pick('p99'),
    ok: pick('ok'),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    peakRssMiB: Math.max(...results.map((r) => r.peakRssMiB)),
    stealPercent: pick('stealPercent'),
  };
}

interface Row {
  name: string;
  zest: Measured;
  baseline?: Measured;
  budget?: string;
  pass?: boolean;
  note?: string;
}

const rows: Row[] = [];

function addRow(row: Row) {
  rows.push(row);
  const z = row.zest;
  log(
    `${row.name}: ${z.requestsPerSecond.toFixed(0)} req/s p50 ${z.p50} p99 ${z.p99}` +
      (row.baseline
        ? ` | baseline ${row.baseline.requestsPerSecond.toFixed(0)} req/s`
        : '') +
      (row.budget ? ` | ${row.budget}: ${row.pass ? 'PASS' : 'FAIL'}` : '') +
      (row.note ? ` | ${row.note}` : '') +
      ` | steal ${z.stealPercent.toFixed(0)} %`,
  );
}

const auth = (key: string) => ({
  Authorization: `Bearer ${key}`,
  Accept: 'application/vnd.api+json',
});

function getSpec(
  port: number,
  paths: string[],
  key: string,
  connections = 32,
): LoadSpec {
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    durationSeconds: DURATION,
    request: { method: 'GET', paths, headers: auth(key) },
  };
}

/** A B A B …: the medians of ROUNDS runs each, the two servers alternating. */
async function sideBySide(
  name: string,
  paths: string[],
  state: BenchState,
  api: { port: number; process: ChildProcess },
  baseline: ChildProcess,
  minRatio?: number,
) {
  const zest: Measured[] = [];
  const bare: Measured[] = [];
  // An unrecorded warm-up on each side, so no round pays for the JIT
  // compiling this route's code (an extra API process starts cold).
  const warmUp = (spec: LoadSpec): LoadSpec => ({
    ...spec,
    durationSeconds: Math.max(1, Math.round(DURATION / 5)),
  });
  await load(warmUp(getSpec(api.port, paths, state.apiKey)), api.process);
  await load(warmUp(getSpec(PORTS.baseline, paths, state.apiKey)), baseline);
  for (let round = 0; round < ROUNDS; round++) {
    zest.push(await load(getSpec(api.port, paths, state.apiKey), api.process));
    bare.push(
      await load(getSpec(PORTS.baseline, paths, state.apiKey), baseline),
    );
  }
  const z = medianOf(zest);
  const b = medianOf(bare);
  const ratio = z.requestsPerSecond / b.requestsPerSecond;
  addRow({
    name,
    zest: z,
    baseline: b,
    ...(minRatio === undefined
      ? {}
      : {
          budget: `≥ ${minRatio.toFixed(2)}× baseline`,
          pass: ratio >= minRatio && z.errors + z.non2xx === 0,
        }),
  });
  return z;
}

async function compareOutputs(state: BenchState, paths: string[]) {
  for (const path of paths) {
    const fetchBody = async (port: number) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: auth(state.apiKey),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`${path} on ${port}: ${response.status} ${text}`);
      // Links differ only in the host (each server's own PUBLIC_BASE_URL).
      return text.replace(/http:\/\/127\.0\.0\.1:\d+\//g, 'http://HOST/');
    };
    const [zest, bare] = await Promise.all([
      fetchBody(PORTS.api),
      fetchBody(PORTS.baseline),
    ]);
    if (zest !== bare) {
      let at = 0;
      while (zest[at] === bare[at]) at++;
      throw new Error(
        `baseline output differs for ${path} at ${at}:\n zest: …${zest.slice(at - 60, at + 60)}\n bare: …${bare.slice(at - 60, at + 60)}`,
      );
    }
  }
  log(`baseline output identical to Zest's for ${paths.length} requests`);
}

async function seed(flags: string[]) {
  const child = spawn(
    process.execPath,
    [join(DIST_BENCH, 'seed.js'), '--state', STATE, ...flags],
    {
      env: zestEnv(PORTS.api),
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  children.add(child);
  const code = await new Promise<number | null>((done) =>
    child.once('exit', done),
  );
  children.delete(child);
  if (code !== 0) throw new Error(`seed ${flags.join(' ')} failed (${code})`);
  return JSON.parse(readFileSync(STATE, 'utf8')) as BenchState;
}

/**
 * Waits until the database is quiet after a seed, so that no measurement
 * pays for the seed's aftermath (the autovacuum of the rows the relay
 * updated, a checkpoint of the seed's writes), least of all the server
 * measured first in each round: the worker's relay has consumed every event
 * the seed wrote, those rows are vacuumed, dirty pages are flushed, and no
 * autovacuum worker is running.
 */
async function settle(db: pg.Client) {
  const count = async (sql: string) =>
    (await db.query<{ n: number }>(sql)).rows[0].n;
  while (
    (await count(
      `SELECT count(*)::int AS n FROM webhook_events WHERE relayed_at IS NULL`,
    )) > 0
  ) {
    await sleep(500);
  }
  await db.query('VACUUM ANALYZE');
  await db.query('CHECKPOINT').catch((error: Error) => {
    log(`no CHECKPOINT (${error.message}); measuring anyway`);
  });
  const deadline = Date.now() + 120_000;
  while (
    Date.now() < deadline &&
    (await count(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
    )) > 0
  ) {
    await sleep(500);
  }
}

async function growth(size: number, state: BenchState, api: ChildProcess) {
  const list = await load(
    getSpec(
      PORTS.api,
      [`/v1/orders?filter%5Bstore_id%5D=${state.storeId}&page%5Bsize%5D=10`],
      state.apiKey,
    ),
    api,
  );
  // What the SDK's listOrders() asks by default: every store of the key's user.
  const allStores = await load(
    getSpec(PORTS.api, ['/v1/orders?page%5Bsize%5D=10'], state.apiKey),
    api,
  );
  const single = await load(
    getSpec(
      PORTS.api,
      state.orderIds.map((id) => `/v1/orders/${id}`),
      state.apiKey,
    ),
    api,
  );
  return { size, list, allStores, single };
}

async function main() {
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const loadBefore = loadavg();
  log(`load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);

  log(`state file: ${STATE}`);
  let started = Date.now();
  let state: BenchState;
  if (args.reuse) {
    state = JSON.parse(readFileSync(STATE, 'utf8')) as BenchState;
  } else {
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DB_NAME}`);
    await admin.end();
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

  const ordersPage = (page: number) =>
    `/v1/orders?filter%5Bstore_id%5D=${state.storeId}&page%5Bsize%5D=10&page%5Bnumber%5D=${page}`;
  const growthRows =
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

  const productPaths = state.productIds
    .filter((_, i) => i % Math.ceil(state.productIds.length / 200) === 0)
    .map((id) => `/v1/products/${id}`);
  const deepPage = Math.floor(SIZES.main / 10 / 2);
  if (!FILES_ONLY)
    await compareOutputs(state, [
      productPaths[0],
      productPaths[1],
      ordersPage(1),
      ordersPage(deepPage),
      `/v1/orders/${state.orderIds[0]}`,
      '/v1/products?include=variants',
    ]);

  if (runs('reads'))
    await reads(state, api, baseline, productPaths, ordersPage);
  if (runs('limiter')) await realLimiter(state, productPaths);
  if (runs('usage')) await usageRecords(state, api);
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
  for (const g of growthRows) {
    const isLast =
      g === growthRows[growthRows.length - 1] &&
      growthRows.length > 2 &&
      !args.reuse;
    const lists = [
      ['orders list page 1 (store filter)', 'list'],
      ['orders list page 1 (all stores)', 'allStores'],
    ] as const;
    for (const [label, key] of lists) {
      const run = g[key];
      const first = growthRows[0][key].p50;
      addRow({
        name: `growth @ ${g.size.toLocaleString('en-US')} orders: ${label}`,
        zest: run,
        budget: isLast ? 'p50 ≤ 3× p50 at the smallest size' : undefined,
        pass: isLast
          ? run.p50 <= 3 * Math.max(first, 1) &&
            run.ok > 0 &&
            run.errors + run.timeouts + run.non2xx === 0
          : undefined,
      });
    }
    addRow({
      name: `growth @ ${g.size.toLocaleString('en-US')} orders: GET /v1/orders/:id`,
      zest: g.single,
    });
  }

  // A dead API reads as 0 MiB: that must not pass.
  const apiPeak =
    api.exitCode === null && api.signalCode === null
      ? memory(api.pid).hwm
      : NaN;
  await Promise.all([stop(api), stop(worker), stop(baseline)]);
  await db.end();
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
  if (!args.keep) await dropDatabase();
}

/** The side-by-side rows (Zest and the baseline) and the include row. */
async function reads(
  state: BenchState,
  api: ChildProcess,
  baseline: ChildProcess,
  productPaths: string[],
  ordersPage: (page: number) => string,
) {
  const deepPage = Math.floor(SIZES.main / 10 / 2);
  const unprepared = await startExtraApi(
    'api (unprepared statements)',
    PORTS.unprepared,
    UNPREPARED_ENV,
  );
  const zest = { port: PORTS.unprepared, process: unprepared };
  await sideBySide(
    'GET /v1/products/:id (both unprepared)',
    productPaths,
    state,
    zest,
    baseline,
    0.6,
  );
  // Zest as it ships: its hot reads prepared. Not budgeted: the baseline
  // still sends every statement unprepared.
  await sideBySide(
    'GET /v1/products/:id, Zest default (prepared) vs baseline (unprepared)',
    productPaths,
    state,
    { port: PORTS.api, process: api },
    baseline,
  );
  const firstPage = await sideBySide(
    `GET /v1/orders (store filter, page 1 of ${SIZES.main / 10}; both unprepared)`,
    [ordersPage(1)],
    state,
    zest,
    baseline,
    0.7,
  );
  // The deferred join: the page's ids from an index-only scan, then 10 rows.
  await sideBySide(
    `GET /v1/orders (store filter, page ${deepPage}; both unprepared)`,
    [ordersPage(deepPage)],
    state,
    zest,
    baseline,
    5,
  );
  // The cursor extension at the same depth: a keyset seek, whatever the depth.
  const cursorPath = await deepCursorPath(state, ordersPage(deepPage - 1));
  const cursorRow = await load(
    getSpec(zest.port, [cursorPath], state.apiKey),
    unprepared,
  );
  addRow({
    name: `GET /v1/orders (store filter, page[after] at page ${deepPage}; unprepared)`,
    zest: cursorRow,
    budget: 'p50 ≤ 3× p50 of page 1',
    pass:
      cursorRow.p50 <= 3 * Math.max(firstPage.p50, 1) &&
      cursorRow.ok > 0 &&
      cursorRow.errors + cursorRow.timeouts + cursorRow.non2xx === 0,
  });
  await sideBySide(
    'GET /v1/products?include=variants (page of 10; both unprepared)',
    ['/v1/products?include=variants'],
    state,
    zest,
    baseline,
    0.7,
  );
  await stop(unprepared);
}

/**
 * The cursor page that follows numbered page `previous`: the `page[after]`
 * of its last order, as a client walking the list would hold it.
 */
async function deepCursorPath(
  state: BenchState,
  previous: string,
): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${PORTS.api}${previous}`, {
    headers: auth(state.apiKey),
  });
  const page = (await response.json()) as { data: { id: string }[] };
  const last = page.data.at(-1);
  if (!last) throw new Error(`${previous}: no orders`);
  const cursor = Buffer.from(JSON.stringify({ id: Number(last.id) })).toString(
    'base64url',
  );
  const url = new URL(previous, 'http://host');
  url.searchParams.delete('page[number]');
  url.searchParams.set('page[after]', cursor);
  return `${url.pathname}${url.search}`;
}

async function realLimiter(state: BenchState, productPaths: string[]) {
  // The real limiter: a second API process with the default 300 requests a minute.
  const limited = await startExtraApi(
    'api (default limits)',
    PORTS.limited,
    {},
  );
  const limitedRun = await load(
    getSpec(PORTS.limited, productPaths, state.limitedApiKey),
    limited,
  );
  await stop(limited);
  addRow({
    name: 'GET /v1/products/:id, real limiter (300/min)',
    zest: limitedRun,
    budget: '300 × 2xx in the window, rest 429',
    pass:
      limitedRun.ok === Math.min(300, limitedRun.ok + limitedRun.non2xx) &&
      limitedRun.errors + limitedRun.timeouts === 0 &&
      (limitedRun.statusCounts['429'] ?? 0) === limitedRun.non2xx,
    note: `${limitedRun.statusCounts['429'] ?? 0} × 429`,
  });
}

async function usageRecords(state: BenchState, api: ChildProcess) {
  const ids = state.subscriptionItemIds;
  const before = await usageTotals(state, ids);
  const result = await load(
    {
      url: `http://127.0.0.1:${PORTS.api}`,
      connections: 50,
      durationSeconds: DURATION,
      // A fixed number of requests, every answer awaited: a run cut off by a
      // duration leaves increments the server applied but the client never counted.
      amount: QUICK ? 2_000 : 20_000,
      countPerSlot: true,
      request: {
        method: 'POST',
        paths: ['/v1/usage-records'],
        headers: {
          ...auth(state.apiKey),
          'Content-Type': 'application/vnd.api+json',
        },
        bodies: ids.map((id) =>
          JSON.stringify({
            data: {
              type: 'usage-records',
              attributes: { quantity: 1, action: 'increment' },
              relationships: {
                'subscription-item': {
                  data: { type: 'subscription-items', id: String(id) },
                },
              },
            },
          }),
        ),
      },
    },
    api,
  );
  const after = await usageTotals(state, ids);
  const applied = ids.map((_, i) => after[i] - before[i]);
  const exact = applied.every((n, i) => n === result.perSlot![i]);
  const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
  addRow({
    name: `POST /v1/usage-records (increment, ${ids.length} items, 50 conn.)`,
    zest: result,
    budget: '≥ 1,000/s, p99 ≤ 150 ms, totals exact',
    pass:
      result.okPerSecond >= 1000 &&
      result.p99 <= 150 &&
      exact &&
      result.non2xx === 0,
    note: exact
      ? `totals exact: ${sum(applied)} increments`
      : `TOTALS WRONG: ${sum(applied)} applied, ${sum(result.perSlot!)} acknowledged`,
  });
}

async function usageTotals(state: BenchState, ids: number[]) {
  return Promise.all(
    ids.map(async (id) => {
      const response = await fetch(
        `http://127.0.0.1:${PORTS.api}/v1/subscription-items/${id}/current-usage`,
        { headers: auth(state.apiKey) },
      );
      const body = (await response.json()) as { meta: { quantity: number } };
      return body.meta.quantity;
    }),
  );
}

async function purchases(state: BenchState, api: ChildProcess) {
  const uuids = state.variantUuids.slice(0, 500);
  const result = await load(
    {
      url: `http://127.0.0.1:${PORTS.api}`,
      connections: 16,
      durationSeconds: DURATION,
      request: {
        method: 'POST',
        paths: uuids.map((uuid) => `/checkout/buy/${uuid}`),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/vnd.api+json',
        },
        bodies: Array.from({ length: 1000 }, (_, i) =>
          JSON.stringify({
            email: `bench-buyer-${i}@bench.test`,
            name: `Bench Buyer ${i}`,
            billing_address: { country: 'US', zip: '10001' },
            card_number: GOOD_CARD,
          }),
        ),
      },
    },
    api,
  );
  addRow({
    name: 'POST /checkout/buy/:uuid (JSON purchase, 16 conn.)',
    zest: result,
    budget: '≥ 150/s, p99 ≤ 400 ms',
    pass: result.okPerSecond >= 150 && result.p99 <= 400 && result.non2xx === 0,
  });
}

/** The file rows (bench/files.ts), on an API process of their own per backend. */
async function files(state: BenchState) {
  const ticks = cpuTicks();
  const results = await fileRows({
    size: Math.round(
      Number(args['file-gib'] ?? (QUICK ? 0.25 : 2)) * 1024 ** 3,
    ),
    port: PORTS.files,
    apiKey: state.apiKey,
    productId: state.productIds[0],
    startApi: (env) => startExtraApi('api (files)', PORTS.files, env),
    stopApi: stop,
    rssMiB: (pid) => memory(pid).rss,
  });
  const f = (n: number) => (Number.isNaN(n) ? '?' : n.toFixed(0));
  for (const r of results)
    addRow({
      name: r.name,
      zest: {
        requestsPerSecond: 2000 / Math.max(1, r.uploadMs + r.downloadMs),
        okPerSecond: r.pass ? 2000 / Math.max(1, r.uploadMs + r.downloadMs) : 0,
        p50: r.uploadMs,
        p99: r.downloadMs,
        ok: r.pass ? 2 : 0,
        non2xx: 0,
        errors: r.failures.length,
        timeouts: 0,
        statusCounts: {},
        peakRssMiB: r.peakRssMiB,
        stealPercent: stealSince(ticks),
      },
      budget:
        'API RSS grows < 64 MiB (upload, download); checksum equal; Range resume 206 at the offset',
      pass: r.pass,
      note:
        `p50 = upload ms, p99 = download ms; RSS +${f(r.uploadGrowthMiB)} MiB uploading, +${f(r.downloadGrowthMiB)} MiB downloading; ` +
        `checksums ${r.checksumsMatch ? 'match' : 'DIFFER'}; Range resume ${r.rangeResumed ? 'correct' : 'WRONG'}` +
        (r.failures.length ? `; ${r.failures.join('; ')}` : ''),
    });
}

async function licenses(state: BenchState, api: ChildProcess) {
  const result = await load(
    {
      url: `http://127.0.0.1:${PORTS.api}`,
      connections: 32,
      durationSeconds: DURATION,
      request: {
        method: 'POST',
        paths: ['/v1/licenses/validate'],
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        bodies: state.licenseKeys.map((key) =>
          JSON.stringify({ license_key: key }),
        ),
      },
    },
    api,
  );
  addRow({
    name: `POST /v1/licenses/validate (${state.licenseKeys.length} keys, 32 conn.)`,
    zest: result,
    budget: '≥ 2,000/s',
    pass: result.okPerSecond >= 2000 && result.non2xx === 0,
  });
}

interface ReceiverReport {
  count: number;
  duplicates: number;
  first: number;
  last: number;
  p50: number;
  p99: number;
}

async function webhooks(state: BenchState, worker: ChildProcess) {
  const receiver = start(
    'receiver',
    join(DIST_BENCH, 'receiver.js'),
    {
      PATH: process.env.PATH ?? '',
      PORT: String(PORTS.receiver),
    },
    true,
  );
  await message(receiver, 'ready');
  const events = start(
    'events',
    join(DIST_BENCH, 'events.js'),
    { ...zestEnv(PORTS.api), BENCH_STATE: STATE },
    true,
  );
  await message(events, 'ready');
  const ready = message<{ id: number }>(events, 'webhook');
  events.send({
    type: 'webhook',
    url: `http://127.0.0.1:${PORTS.receiver}/hook`,
  });
  const webhook = await ready;

  const report = async (phase: string, expected: number) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = message<ReceiverReport>(receiver, 'report');
      receiver.send({ type: 'report', phase });
      const figures = await answer;
      if (figures.count >= expected || Date.now() > deadline) return figures;
      await sleep(250);
    }
  };

  // Throughput: a burst of events, delivered by the one worker as fast as it can.
  const burst = QUICK ? 1_000 : 20_000;
  let peak = 0;
  const sampler = setInterval(
    () => (peak = Math.max(peak, memory(worker.pid).rss)),
    100,
  );
  const burstStart = Date.now();
  const burstTicks = cpuTicks();
  const burstDone = message<{ ms: number }>(events, 'burst');
  events.send({ type: 'burst', count: burst, phase: 'burst' });
  await burstDone;
  const throughput = await report('burst', burst);
  const seconds = (throughput.last - burstStart) / 1000;
  const perSecond = throughput.count / seconds;
  addRow({
    name: `webhook deliveries, burst of ${burst} events (1 worker)`,
    zest: {
      requestsPerSecond: perSecond,
      okPerSecond: perSecond,
      p50: throughput.p50,
      p99: throughput.p99,
      ok: throughput.count,
      non2xx: 0,
      errors: burst - throughput.count,
      timeouts: 0,
      statusCounts: {},
      peakRssMiB: peak,
      stealPercent: stealSince(burstTicks),
    },
    budget: '≥ 1,000 deliveries/s',
    pass: perSecond >= 1000 && throughput.count === burst,
    note: `${throughput.duplicates} duplicates; worker RSS`,
  });

  // Latency: 200 events a second, each in its own transaction.
  const rateSeconds = QUICK ? 3 : 30;
  const rateTicks = cpuTicks();
  const rateDone = message<{ ms: number }>(events, 'rate');
  events.send({
    type: 'rate',
    perSecond: 200,
    seconds: rateSeconds,
    phase: 'rate',
  });
  await rateDone;
  const latency = await report('rate', 200 * rateSeconds);
  clearInterval(sampler);
  addRow({
    name: 'webhook event-to-delivery at 200 events/s',
    zest: {
      requestsPerSecond: latency.count / rateSeconds,
      okPerSecond: latency.count / rateSeconds,
      p50: latency.p50,
      p99: latency.p99,
      ok: latency.count,
      non2xx: 0,
      errors: 200 * rateSeconds - latency.count,
      timeouts: 0,
      statusCounts: {},
      peakRssMiB: peak,
      stealPercent: stealSince(rateTicks),
    },
    budget: 'p99 ≤ 1 s',
    pass: latency.p99 <= 1000 && latency.count === 200 * rateSeconds,
    note: 'latency = receipt − write; worker RSS',
  });
  const removed = message(events, 'removed');
  events.send({ type: 'remove-webhook', id: webhook.id });
  await removed;
  await Promise.all([stop(events), stop(receiver)]);
}

function render(apiPeak: number, before: number[], after: number[]) {
  const f = (n: number) =>
    n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const lines = [
    `Zest benchmark (${QUICK ? 'QUICK: harness check, figures not meaningful' : 'full'}) — ${new Date().toISOString()}`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${f(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; ` +
      `load average before ${before.map((l) => l.toFixed(2)).join('/')}, after ${after.map((l) => l.toFixed(2)).join('/')}`,
    `Runs: ${DURATION} s each; side-by-side rows are medians of ${ROUNDS} A/B rounds. Latency in ms, RSS in MiB; steal: % of the machine's CPU time the hypervisor took during the run.`,
    '',
    '| Scenario | Zest req/s | p50 | p99 | errors | peak RSS | steal | Baseline req/s | p50 | p99 | errors | peak RSS | steal | Zest/baseline | Budget | Result |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const row of rows) {
    const z = row.zest;
    const b = row.baseline;
    const errors = (m: Measured) => f(m.errors + m.timeouts + m.non2xx);
    const steal = (m: Measured) => `${m.stealPercent.toFixed(0)} %`;
    lines.push(
      `| ${row.name}${row.note ? ` (${row.note})` : ''} | ${f(z.requestsPerSecond)} | ${z.p50} | ${z.p99} | ${errors(z)} | ${f(z.peakRssMiB)} | ${steal(z)} | ` +
        (b
          ? `${f(b.requestsPerSecond)} | ${b.p50} | ${b.p99} | ${errors(b)} | ${f(b.peakRssMiB)} | ${steal(b)} | ${(z.requestsPerSecond / b.requestsPerSecond).toFixed(2)}×`
          : '– | – | – | – | – | – | –') +
        ` | ${row.budget ?? '–'} | ${row.pass === undefined ? '–' : row.pass ? 'PASS' : 'FAIL'} |`,
    );
  }
  lines.push(
    Number.isNaN(apiPeak)
      ? '| API process peak RSS (whole run) (the API process had exited) | | | | | – | | | | | | | | | ≤ 256 MiB | FAIL |'
      : `| API process peak RSS (whole run) | | | | | ${f(apiPeak)} | | | | | | | | | ≤ 256 MiB | ${apiPeak <= 256 ? 'PASS' : 'FAIL'} |`,
  );
  return lines.join('\n');
}

async function dropDatabase() {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.end();
}

/** Queue and rate-limit keys live under this run's prefix; remove them. */
async function cleanRedis() {
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(
      cursor,
      'MATCH',
      `${PREFIX}:*`,
      'COUNT',
      1000,
    );
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

async function cleanup() {
  await Promise.all([...children].map(stop));
  await cleanRedis().catch(() => undefined);
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
