import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** The command line (see bench/run.ts) and what every part of the bench shares. */

export const { values: args } = parseArgs({
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

export const GROUPS = [
  'reads',
  'limiter',
  'usage',
  'purchases',
  'licenses',
  'webhooks',
  'files',
  'growth',
  'embedded',
] as const;
export type Group = (typeof GROUPS)[number];
export const ONLY = args.only?.split(',').map((group) => group.trim());
const unknownGroup = ONLY?.find(
  (group) => !(GROUPS as readonly string[]).includes(group),
);
if (unknownGroup !== undefined)
  throw new Error(
    `--only: unknown group ${JSON.stringify(unknownGroup)} (groups: ${GROUPS.join(', ')})`,
  );
export const runs = (group: Group) =>
  ONLY === undefined || ONLY.includes(group);

export const QUICK = args.quick === true;
export const ROUNDS = Number(args.rounds ?? 3);
export const DURATION = Number(args.duration ?? (QUICK ? 2 : 10));
/** Only the file rows: they need a variant, not a grown database. */
export const FILES_ONLY =
  ONLY !== undefined && ONLY.every((group) => group === 'files');
export const SIZES =
  QUICK || FILES_ONLY
    ? { products: 300, small: 1_000, main: 5_000, large: 20_000 }
    : { products: 10_000, small: 10_000, main: 100_000, large: 1_000_000 };
/** The compiled bench (dist-bench/bench) and the repository root. */
export const DIST_BENCH = resolve(__dirname, '..');
export const ROOT = resolve(DIST_BENCH, '..', '..');
export const PG_ADMIN =
  process.env.BENCH_PG_ADMIN ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const DB_NAME = process.env.BENCH_DB ?? 'zest_bench';
export const DATABASE_URL = PG_ADMIN.replace(/\/[^/]*$/, `/${DB_NAME}`);
export const REDIS_URL =
  process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const PREFIX = `zest-bench-${process.pid}`;
export const STATE =
  args.reuse ??
  join(process.env.BENCH_TMP ?? '/tmp', `zest-bench-${process.pid}.json`);
export const PORTS = {
  api: 3900,
  limited: 3901,
  baseline: 3902,
  receiver: 3903,
  health: 3904,
  unprepared: 3905,
  files: 3906,
  embedded: 3907,
  embeddedHealth: 3908,
  twin: 3909,
  twinHealth: 3910,
};
export const APP_KEY = 'bench-app-key-bench-app-key-bench-app-key';
const UNLIMITED = '1000000000';

export function zestEnv(port: number, extra: Record<string, string> = {}) {
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
export const UNLIMITED_ENV = {
  RATE_LIMIT_PER_MINUTE: UNLIMITED,
  LICENSE_RATE_LIMIT_PER_MINUTE: UNLIMITED,
  AUTH_FAILURE_LIMIT_PER_MINUTE: UNLIMITED,
  // The public routes' limits (per client IP and per checkout): the
  // purchases row sends every request from one address.
  PAGE_RATE_LIMIT_PER_MINUTE: UNLIMITED,
  PURCHASE_RATE_LIMIT_PER_MINUTE: UNLIMITED,
  CHECKOUT_RATE_LIMIT_PER_MINUTE: UNLIMITED,
};
export const API_ENV = zestEnv(PORTS.api, UNLIMITED_ENV);

/**
 * The API for the budgeted side-by-side rows: the bare baseline sends every
 * statement unprepared, as `pg` does by default, so these rows compare like
 * with like; one more row measures Zest's default against the same baseline.
 */
export const UNPREPARED_ENV = {
  ...UNLIMITED_ENV,
  DATABASE_PREPARED_STATEMENTS: 'false',
};

export const PROFILE_ARGS = args.profile
  ? [
      '--cpu-prof',
      `--cpu-prof-dir=${join(ROOT, 'bench', 'results', 'profiles')}`,
    ]
  : [];

/** As production starts the API (docker/Dockerfile, `npm run start:api`): V8's old space capped. */
export const API_NODE_ARGS = [
  '--max-old-space-size=128',
  '--max-semi-space-size=16',
  ...PROFILE_ARGS,
];
