/**
 * The environment variables Zest reads, as one zod schema: each variable's
 * type, bounds and default. `loadConfig` (app-config.ts) turns the parsed
 * result into the typed AppConfig that the rest of the code reads.
 */
import { z } from 'zod';
import { parseDurationList } from '../common/durations';
import { parseStorageUrl } from '../storage/storage-url';

const booleanFlag = z
  .enum(['true', 'false', '1', '0'], {
    error: 'must be one of true, false, 1, 0',
  })
  .transform((value) => value === 'true' || value === '1');

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(0, 'must be between 0 and 65535')
  .max(65535, 'must be between 0 and 65535');

const positiveInt = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .positive('must be positive');

const nonNegativeInt = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(0, 'must be zero or more');

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .transform((value) => value.replace(/\/+$/, ''));

/** A JSON object in an environment variable, e.g. TAX_RATES='{"GB":{"name":"VAT","rate":20}}'. */
const jsonObject = z.string().transform((value, context) => {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed;
  } catch {
    // reported below
  }
  context.addIssue({ code: 'custom', message: 'must be a JSON object' });
  return z.NEVER;
});

const taxRates = jsonObject.pipe(
  z.record(
    z.string().regex(/^[A-Z]{2}$/, 'keys must be ISO 3166-1 alpha-2 codes'),
    z.object({
      name: z.string().min(1),
      rate: z.number().min(0).max(100),
    }),
  ),
);

const currencyRates = jsonObject.pipe(
  z.record(
    z.string().regex(/^[A-Z]{3}$/, 'keys must be ISO 4217 codes'),
    z.number().positive('rates must be positive'),
  ),
);

const durationList = z.string().transform((value, context) => {
  try {
    return parseDurationList(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const postgresUrl = z.url({
  protocol: /^postgres(ql)?$/,
  error: 'must be a postgres:// URL',
});

const mailUrl = z.url({
  protocol: /^smtps?$/,
  error: 'must be an smtp:// or smtps:// URL',
});

const redisUrl = z.url({
  protocol: /^rediss?$/,
  error: 'must be a redis:// or rediss:// URL',
});

/** A minute, then growing waits: the last try is about a day after the first. */
const DEFAULT_MAIL_RETRY_DELAYS = '1m,5m,15m,1h,2h*11';

/** Where the ECB publishes its daily reference rates (the production default of CURRENCY_RATES_URL). */
export const ECB_DAILY_RATES_URL =
  'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

/** Dunning: retries of a failed renewal, as offsets from the renewal date. */
export const DEFAULT_DUNNING_SCHEDULE = '1d,3d,7d';
/** 5 s, 25 s, 125 s as Lemon Squeezy does, then hourly: the last try is within 24 h of the first. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS = '5s,25s,125s,1h*23';

/**
 * Every environment variable Zest reads. `.env.example` documents each one;
 * keep the two in step.
 */
export const environmentSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'production', 'test'], {
      error: 'must be development, production or test',
    })
    .default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  HEALTH_PORT: port.default(3001),
  PUBLIC_BASE_URL: httpUrl.optional(),
  CHECKOUT_BASE_URL: httpUrl.optional(),
  PROXY_BASE_URL: httpUrl.optional(),
  APP_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  METRICS_TOKEN: z
    .string()
    .regex(/^\S{16,}$/, 'must be at least 16 characters, without spaces')
    .optional(),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  DATABASE_PREPARED_STATEMENTS: booleanFlag.default(true),
  DATA_DIR: z.string().min(1).default('./.data'),
  STORAGE_DIR: z.string().min(1).optional(),
  STORAGE_URL: z
    .string()
    .transform((value, context) => {
      try {
        return parseStorageUrl(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    })
    .optional(),
  FILE_MAX_BYTES: positiveInt
    .max(Number.MAX_SAFE_INTEGER, 'must be at most 2^53 - 1')
    .default(5 * 1024 ** 3),
  INVOICE_FONT: z.string().min(1).optional(),
  INVOICE_FONT_BOLD: z.string().min(1).optional(),
  REDIS_URL: redisUrl.optional(),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]+$/i, 'must contain only letters, digits, _ and -')
    .default('zest'),
  // How long a killed worker's jobs stay locked before another worker takes
  // them over (BullMQ's lockDuration and stalledInterval). A busy worker
  // renews its locks every half of it.
  QUEUE_LOCK_DURATION_MS: positiveInt
    .min(1000, 'must be at least 1000')
    .default(30_000),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error:
        'must be a pino level (fatal, error, warn, info, debug, trace, silent)',
    })
    .default('info'),
  LOG_FORMAT: z
    .enum(['auto', 'pretty', 'json'], {
      error: 'must be auto, pretty or json',
    })
    .default('auto'),
  REQUIRE_HTTPS: booleanFlag.optional(),
  TRUST_PROXY: z.string().default('false'),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(300),
  LICENSE_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
  AUTH_FAILURE_LIMIT_PER_MINUTE: positiveInt.default(60),
  PAGE_RATE_LIMIT_PER_MINUTE: positiveInt.default(120),
  PURCHASE_RATE_LIMIT_PER_MINUTE: positiveInt.default(20),
  CHECKOUT_RATE_LIMIT_PER_MINUTE: positiveInt.default(300),
  PURCHASE_DECLINE_WEIGHT: positiveInt.default(5),
  CHECKOUT_LOCK_DECLINES: positiveInt.default(20),
  CHECKOUT_LOCK_WINDOW_SECONDS: positiveInt.default(600),
  CHECKOUT_LOCK_SECONDS: positiveInt.default(900),
  API_KEY_CACHE_TTL_MS: nonNegativeInt.default(5000),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(25000),
  BILLING_SWEEP_INTERVAL_MS: positiveInt.default(60000),
  DUNNING_SCHEDULE: durationList
    .default(parseDurationList(DEFAULT_DUNNING_SCHEDULE))
    .refine(
      (offsets) =>
        offsets.every((ms, i) => ms > (i === 0 ? 0 : offsets[i - 1])),
      'offsets must be positive and increasing, such as 1d,3d,7d',
    ),
  TAX_RATES: taxRates.default({}),
  TAX_INCLUSIVE: booleanFlag.default(false),
  TAX_VAT_VALIDATION: z
    .enum(['offline', 'online'], {
      error: 'must be offline or online',
    })
    .default('offline'),
  TAX_VIES_URL: httpUrl.default(
    'https://ec.europa.eu/taxation_customs/vies/rest-api',
  ),
  TAX_VIES_TIMEOUT_MS: positiveInt.default(5000),
  CURRENCY_RATES: currencyRates.default({}),
  CURRENCY_RATES_URL: z.union([z.literal('off'), httpUrl]).optional(),
  STRIPE_API_URL: httpUrl.optional(),
  STRIPE_INTENT_TIMEOUT_MS: positiveInt.default(24 * 60 * 60 * 1000),
  CURRENCY_RATES_REFRESH_INTERVAL_MS: positiveInt.default(60 * 60 * 1000),
  CURRENCY_RATES_TIMEOUT_MS: positiveInt.default(10000),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10000),
  WEBHOOK_RETRY_DELAYS: durationList.default(
    parseDurationList(DEFAULT_WEBHOOK_RETRY_DELAYS),
  ),
  WEBHOOK_RELAY_INTERVAL_MS: positiveInt.default(5000),
  WEBHOOK_CONCURRENCY: positiveInt.default(100),
  WEBHOOK_RETENTION_DAYS: positiveInt.default(30),
  MAIL_URL: mailUrl.optional(),
  MAIL_FROM: z.string().min(3).max(320).optional(),
  MAIL_DISABLED: booleanFlag.default(false),
  MAIL_DKIM_DOMAIN: z.string().min(1).optional(),
  MAIL_DKIM_SELECTOR: z.string().min(1).optional(),
  MAIL_DKIM_PRIVATE_KEY: z.string().min(1).optional(),
  MAIL_RETRY_DELAYS: durationList.default(
    parseDurationList(DEFAULT_MAIL_RETRY_DELAYS),
  ),
  MAIL_SWEEP_INTERVAL_MS: positiveInt.default(5000),
  MAIL_CONCURRENCY: positiveInt.default(40),
  MAIL_SMTP_CONNECTIONS: positiveInt.default(10),
  MAIL_TIMEOUT_MS: positiveInt.default(30000),
});

export type Environment = z.infer<typeof environmentSchema>;
