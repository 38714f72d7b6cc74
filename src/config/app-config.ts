import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMailbox } from '../common/mail-address';
import { S3StorageSettings } from '../storage/storage-url';
import {
  ECB_DAILY_RATES_URL,
  Environment,
  environmentSchema,
} from './environment';

export interface AppConfig {
  env: Environment['NODE_ENV'];
  http: {
    host: string;
    port: number;
    /** Port of the worker's health listener (the worker serves no other HTTP). */
    healthPort: number;
    publicBaseUrl: string;
    checkoutBaseUrl: string;
    proxyBaseUrl: string | null;
    requireHttps: boolean;
    /** Fastify `trustProxy`: false, true, or the proxies' addresses/CIDRs. */
    trustProxy: boolean | string[];
  };
  /** Secret for API-key hashes and signed URLs. */
  appKey: string;
  /** Bearer token that `GET /metrics` requires; null turns the route off. */
  metricsToken: string | null;
  database: {
    /** null selects the embedded PGlite default. */
    url: string | null;
    poolSize: number;
    /**
     * Hot statements stay prepared per connection (on the embedded
     * database too, whose multiplexer keeps each connection's statement
     * names apart). Off for a pooler that cannot track them, such as
     * PgBouncer before 1.21 in transaction mode.
     */
    preparedStatements: boolean;
    dataDir: string;
  };
  queue: {
    /** null selects BullMQ's PostgreSQL backend on the application database. */
    redisUrl: string | null;
    prefix: string;
    /** A worker's hold on its active jobs; a killed worker's jobs run again after one to two of these. */
    lockDurationMs: number;
  };
  storage: {
    /** Root of the local-disk file storage (uploads, invoice PDFs) when no STORAGE_URL is set. */
    dir: string;
    /** An S3-compatible bucket shared by every replica; null keeps files on local disk. */
    s3: S3StorageSettings | null;
    /** The largest file an upload may store (bytes); larger ones are refused with 413. */
    fileMaxBytes: number;
  };
  invoices: {
    /**
     * TrueType/OpenType fonts embedded in invoice PDFs. null uses the PDF
     * standard fonts, which cover Western European text only.
     */
    font: string | null;
    boldFont: string | null;
  };
  logLevel: Environment['LOG_LEVEL'];
  /** How the embedded start-up banner is written: plain text (`pretty`, or `auto` on a terminal) or one JSON log line. */
  logFormat: Environment['LOG_FORMAT'];
  rateLimit: {
    perMinute: number;
    licensePerMinute: number;
    /** Failed authentications per client IP before the 401 carries Retry-After. */
    authFailuresPerMinute: number;
    /** Buyer-facing pages, downloads and the API reference, per client IP. */
    pagePerMinute: number;
    /** The hosted checkout's purchase (and the portal's card update). */
    purchase: {
      /** Attempts per minute per client IP; a declined one counts `declineWeight`. */
      perIpPerMinute: number;
      /** Attempts per minute per checkout (or subscription), weighted the same way. */
      perCheckoutPerMinute: number;
      declineWeight: number;
      /** Declines on one checkout within `lockWindowMs` that pause its purchases. */
      lockDeclines: number;
      lockWindowMs: number;
      /** How long purchases stay paused. */
      lockMs: number;
    };
  };
  apiKeyCacheTtlMs: number;
  shutdownTimeoutMs: number;
  billing: {
    /** How often the worker's renewal sweep runs. */
    sweepIntervalMs: number;
    /**
     * When a failed renewal is charged again: offsets (ms) from the renewal
     * date, one retry each; after the last one fails the subscription is
     * `unpaid`.
     */
    dunningScheduleMs: number[];
  };
  money: {
    /** Tax by billing country (percent), overriding the built-in table for it. */
    taxRates: Record<string, { name: string; rate: number }>;
    /** `online`: EU VAT numbers are confirmed with VIES (offline check as the fallback). */
    vatValidation: 'offline' | 'online';
    viesUrl: string;
    viesTimeoutMs: number;
    /** Whether prices already include the tax. */
    taxInclusive: boolean;
    /**
     * USD per one unit of each currency, set by the operator: these win over
     * fetched and shipped rates. USD itself is always 1.
     */
    currencyRates: Record<string, number>;
    /**
     * The ECB daily reference-rates document to refresh rates from (the
     * ECB's own in production unless CURRENCY_RATES_URL=off); null: no
     * refresh job.
     */
    currencyRatesUrl: string | null;
    /** How often the worker fetches it. */
    currencyRatesRefreshIntervalMs: number;
    /** A fetch without a complete answer within this time fails (the last known rates stay). */
    currencyRatesTimeoutMs: number;
    /** Stripe's API base; null: api.stripe.com. Tests point it at a Stripe double. */
    stripeApiUrl: string | null;
    /**
     * How long a hosted checkout's Stripe intent may wait for the buyer
     * before the sweeper cancels it and fails its order.
     */
    stripeIntentTimeoutMs: number;
  };
  webhooks: {
    /** Lets deliveries reach private, loopback and other non-public addresses (tests, closed networks). */
    allowPrivate: boolean;
    /** A delivery that has no response status within this time failed. */
    timeoutMs: number;
    /** Waits before each retry; after the last, the delivery is failed. */
    retryDelaysMs: number[];
    /** How often the relay and the sweeper run without a nudge. */
    relayIntervalMs: number;
    /** Deliveries in flight per worker process. */
    concurrency: number;
    /** Events and their delivery log are deleted after this many days. */
    retentionDays: number;
  };
  mail: {
    /** The SMTP server (`smtp://user:pass@host:587`, `smtps://…`); null keeps messages in the local mailbox only. */
    url: string | null;
    /** The deployment's From address, for stores that set none. */
    from: string;
    /** No message is recorded or sent (MAIL_DISABLED=true). */
    disabled: boolean;
    /** DKIM signing of every message; null without MAIL_DKIM_*. */
    dkim: {
      domainName: string;
      keySelector: string;
      privateKey: string;
    } | null;
    /** Waits before each retry of a temporary failure; after the last, the message is failed. */
    retryDelaysMs: number[];
    /** How often the worker looks for due messages without a nudge. */
    sweepIntervalMs: number;
    /** Messages in flight per worker process (rendering, claiming, sending). */
    concurrency: number;
    /** Pooled SMTP connections per worker process; sends beyond them wait for one. */
    smtpConnections: number;
    /** An SMTP connection, greeting or reply slower than this fails the attempt. */
    timeoutMs: number;
    /** The local mailbox page (/dev/mailbox) is served: outside production only. */
    mailbox: boolean;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

function parseTrustProxy(value: string): boolean | string[] {
  const trimmed = value.trim();
  if (trimmed === 'true') return true;
  if (trimmed === 'false' || trimmed === '') return false;
  return trimmed.split(',').map((part) => part.trim());
}

/**
 * Outside production an unset APP_KEY is generated once and kept under
 * DATA_DIR, so the quickstart works and keys stay valid across restarts.
 */
function developmentAppKey(dataDir: string): string {
  const file = join(dataDir, 'app-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, key, { mode: 0o600 });
  return key;
}

/**
 * Parses and validates the environment once, at start-up. Empty strings count
 * as unset so that `FOO=` in a compose file means "use the default".
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
): AppConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(
      ([, value]) => value !== undefined && value !== '',
    ),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${issue.path.join('.')}: ${issue.message}`,
      ),
    );
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  if (production && !e.APP_KEY) {
    throw new ConfigError(['APP_KEY: is required when NODE_ENV=production']);
  }
  const missingFonts = (['INVOICE_FONT', 'INVOICE_FONT_BOLD'] as const).filter(
    (name) => e[name] !== undefined && !existsSync(e[name]),
  );
  if (missingFonts.length > 0) {
    throw new ConfigError(
      missingFonts.map((name) => `${name}: no such file: ${e[name]}`),
    );
  }
  if (production && !e.MAIL_URL && !e.MAIL_DISABLED) {
    throw new ConfigError([
      'MAIL_URL: is required when NODE_ENV=production (set MAIL_DISABLED=true to send no e-mail)',
    ]);
  }
  const dkimVariables = [
    'MAIL_DKIM_DOMAIN',
    'MAIL_DKIM_SELECTOR',
    'MAIL_DKIM_PRIVATE_KEY',
  ] as const;
  const dkimSet = dkimVariables.filter((name) => e[name] !== undefined);
  if (dkimSet.length > 0 && dkimSet.length < dkimVariables.length) {
    throw new ConfigError(
      dkimVariables
        .filter((name) => e[name] === undefined)
        .map((name) => `${name}: is required when ${dkimSet[0]} is set`),
    );
  }
  if (e.MAIL_FROM !== undefined && !parseMailbox(e.MAIL_FROM)) {
    throw new ConfigError([
      'MAIL_FROM: must be one address, optionally with a name: Shop <shop@example.com>',
    ]);
  }
  const publicBaseUrl = e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`;
  return {
    env: e.NODE_ENV,
    http: {
      host: e.HOST,
      port: e.PORT,
      healthPort: e.HEALTH_PORT,
      publicBaseUrl,
      checkoutBaseUrl: e.CHECKOUT_BASE_URL ?? publicBaseUrl,
      proxyBaseUrl: e.PROXY_BASE_URL ?? null,
      requireHttps: e.REQUIRE_HTTPS ?? production,
      trustProxy: parseTrustProxy(e.TRUST_PROXY),
    },
    appKey: e.APP_KEY ?? developmentAppKey(e.DATA_DIR),
    metricsToken: e.METRICS_TOKEN ?? null,
    database: {
      url: e.DATABASE_URL ?? null,
      poolSize: e.DATABASE_POOL_SIZE,
      preparedStatements: e.DATABASE_PREPARED_STATEMENTS,
      dataDir: e.DATA_DIR,
    },
    queue: {
      redisUrl: e.REDIS_URL ?? null,
      prefix: e.QUEUE_PREFIX,
      lockDurationMs: e.QUEUE_LOCK_DURATION_MS,
    },
    storage: {
      dir: e.STORAGE_DIR ?? join(e.DATA_DIR, 'storage'),
      s3: e.STORAGE_URL ?? null,
      fileMaxBytes: e.FILE_MAX_BYTES,
    },
    invoices: {
      font: e.INVOICE_FONT ?? null,
      boldFont: e.INVOICE_FONT_BOLD ?? e.INVOICE_FONT ?? null,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    rateLimit: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      licensePerMinute: e.LICENSE_RATE_LIMIT_PER_MINUTE,
      authFailuresPerMinute: e.AUTH_FAILURE_LIMIT_PER_MINUTE,
      pagePerMinute: e.PAGE_RATE_LIMIT_PER_MINUTE,
      purchase: {
        perIpPerMinute: e.PURCHASE_RATE_LIMIT_PER_MINUTE,
        perCheckoutPerMinute: e.CHECKOUT_RATE_LIMIT_PER_MINUTE,
        declineWeight: e.PURCHASE_DECLINE_WEIGHT,
        lockDeclines: e.CHECKOUT_LOCK_DECLINES,
        lockWindowMs: e.CHECKOUT_LOCK_WINDOW_SECONDS * 1000,
        lockMs: e.CHECKOUT_LOCK_SECONDS * 1000,
      },
    },
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    billing: {
      sweepIntervalMs: e.BILLING_SWEEP_INTERVAL_MS,
      dunningScheduleMs: e.DUNNING_SCHEDULE,
    },
    money: {
      taxRates: e.TAX_RATES,
      taxInclusive: e.TAX_INCLUSIVE,
      vatValidation: e.TAX_VAT_VALIDATION,
      viesUrl: e.TAX_VIES_URL,
      viesTimeoutMs: e.TAX_VIES_TIMEOUT_MS,
      currencyRates: { ...e.CURRENCY_RATES, USD: 1 },
      // Production refreshes from the ECB unless told otherwise: OSS returns
      // and USD figures need the day's rates, not the shipped table's.
      currencyRatesUrl:
        e.CURRENCY_RATES_URL === 'off'
          ? null
          : (e.CURRENCY_RATES_URL ?? (production ? ECB_DAILY_RATES_URL : null)),
      currencyRatesRefreshIntervalMs: e.CURRENCY_RATES_REFRESH_INTERVAL_MS,
      currencyRatesTimeoutMs: e.CURRENCY_RATES_TIMEOUT_MS,
      stripeApiUrl: e.STRIPE_API_URL ?? null,
      stripeIntentTimeoutMs: e.STRIPE_INTENT_TIMEOUT_MS,
    },
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: e.WEBHOOK_RETRY_DELAYS,
      relayIntervalMs: e.WEBHOOK_RELAY_INTERVAL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      retentionDays: e.WEBHOOK_RETENTION_DAYS,
    },
    mail: {
      url: e.MAIL_URL ?? null,
      from: e.MAIL_FROM ?? `Zest <no-reply@${new URL(publicBaseUrl).hostname}>`,
      disabled: e.MAIL_DISABLED,
      dkim:
        e.MAIL_DKIM_DOMAIN && e.MAIL_DKIM_SELECTOR && e.MAIL_DKIM_PRIVATE_KEY
          ? {
              domainName: e.MAIL_DKIM_DOMAIN,
              keySelector: e.MAIL_DKIM_SELECTOR,
              // A key in an environment variable often has its newlines escaped.
              privateKey: e.MAIL_DKIM_PRIVATE_KEY.replace(/\\n/g, '\n'),
            }
          : null,
      retryDelaysMs: e.MAIL_RETRY_DELAYS,
      sweepIntervalMs: e.MAIL_SWEEP_INTERVAL_MS,
      concurrency: e.MAIL_CONCURRENCY,
      smtpConnections: e.MAIL_SMTP_CONNECTIONS,
      timeoutMs: e.MAIL_TIMEOUT_MS,
      mailbox: !production,
    },
  };
}
