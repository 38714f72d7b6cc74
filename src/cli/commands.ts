import { formatTimestamp, parseTimestamp } from '../common/timestamps';
import {
  Command,
  integer,
  positiveInteger,
  required,
  UsageError,
  Values,
} from './command';

const application = () => import('./application.js');

const timestamp = (value: Date | string | null) =>
  value === null ? null : formatTimestamp(new Date(value));

/** `--user <id>` as a list filter: the SQL condition and its parameter. */
function filterBy(values: Values, option: string, column: string) {
  const id = positiveInteger(values, option);
  return id === undefined
    ? { where: '', parameters: [] }
    : { where: `WHERE ${column} = $1`, parameters: [id] };
}

/**
 * Every operator command. The list commands read with plain SQL rather than
 * through the services: they need no application (queue, workers), so they
 * answer in about the time the database takes to open, and they select named
 * columns only, so a key hash or a webhook secret is never even read.
 */
export const COMMANDS: Record<string, Command> = {
  migrate: {
    description: 'Apply the database migrations that have not run yet.',
    options: {},
    example: 'migrate',
    async run(_, { database, progress }) {
      const { runMigrations } = await import('./runtime.js');
      progress('Applying migrations…');
      return { applied: await runMigrations(database.url) };
    },
  },
  'users:create': {
    description: 'Create a user (a merchant account that owns stores).',
    options: {
      email: {
        type: 'string',
        value: '<email>',
        required: true,
        description: 'Sign-in e-mail address; unique.',
      },
      name: {
        type: 'string',
        value: '<name>',
        required: true,
        description: 'Display name.',
      },
    },
    example: 'users:create --email ann@example.com --name Ann',
    async run(values, { app }) {
      const { UserService } = await application();
      const user = await (await app()).get(UserService).create({
        email: required(values, 'email'),
        name: required(values, 'name'),
      });
      return { id: user.id, email: user.email, name: user.name };
    },
  },
  'stores:create': {
    description: 'Create a store owned by a user.',
    options: {
      user: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'Owner (a user id).',
      },
      name: {
        type: 'string',
        value: '<name>',
        required: true,
        description: 'Store name.',
      },
      slug: {
        type: 'string',
        value: '<slug>',
        description: 'URL slug. Default: made from the name.',
      },
      currency: {
        type: 'string',
        value: '<code>',
        description: 'ISO 4217 currency. Default: USD.',
      },
      country: {
        type: 'string',
        value: '<code>',
        description: 'ISO 3166-1 alpha-2 country. Default: US.',
      },
    },
    example: 'stores:create --user 1 --name "Ann\'s Shop" --currency EUR',
    async run(values, { app }) {
      const { UserService, StoreService } = await application();
      const context = await app();
      const userId = integer(values, 'user');
      if (!(await context.get(UserService).findById(userId)))
        throw new UsageError(`user ${userId} does not exist`);
      const store = await context.get(StoreService).create({
        userId,
        name: required(values, 'name'),
        slug: values.slug as string | undefined,
        currency: values.currency as string | undefined,
        country: values.country as string | undefined,
      });
      return {
        id: store.id,
        user_id: store.userId,
        name: store.name,
        slug: store.slug,
        currency: store.currency,
        country: store.country,
      };
    },
  },
  'stores:list': {
    description: 'List stores (id, owner, name, slug, currency, country).',
    options: {
      user: {
        type: 'string',
        value: '<id>',
        integer: true,
        description: "Only this user's stores.",
      },
    },
    example: 'stores:list --user 1',
    table: 'stores',
    async run(values, { query }) {
      const { where, parameters } = filterBy(values, 'user', 'user_id');
      const rows = await query<Record<string, unknown>>(
        `SELECT id, user_id, name, slug, currency, country, created_at
           FROM stores ${where} ORDER BY id`,
        parameters,
      );
      return {
        stores: rows.map((row) => ({
          ...row,
          created_at: timestamp(row.created_at as Date),
        })),
      };
    },
  },
  'api-keys:create': {
    description:
      'Create an API key for a user and print it once (only its hash is kept).',
    options: {
      user: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'Owner (a user id).',
      },
      mode: {
        type: 'string',
        value: 'test|live',
        required: true,
        description: 'test: test-mode data only; live: live data.',
      },
      name: {
        type: 'string',
        value: '<name>',
        description:
          'A label, e.g. the machine using it. Default: "<mode> key".',
      },
      'expires-in': {
        type: 'string',
        value: '<days>',
        integer: true,
        description: 'Days until the key stops working. Default: 365.',
      },
    },
    example:
      'api-keys:create --user 1 --mode test --name laptop --expires-in 30',
    async run(values, { app, progress }) {
      const { ApiKeyService } = await application();
      const mode = required(values, 'mode');
      if (mode !== 'test' && mode !== 'live')
        throw new UsageError('--mode must be test or live');
      const userId = integer(values, 'user');
      const days = positiveInteger(values, 'expires-in');
      const context = await app();
      progress('Creating the key…');
      const { apiKey, key } = await context
        .get(ApiKeyService)
        .create(userId, mode, values.name as string | undefined, days);
      return {
        id: apiKey.id,
        key,
        mode: apiKey.mode,
        name: apiKey.name,
        expires_at: formatTimestamp(apiKey.expiresAt),
      };
    },
  },
  'api-keys:list': {
    description:
      'List API keys: prefix, mode, status, expiry and last use (never the key).',
    options: {
      user: {
        type: 'string',
        value: '<id>',
        integer: true,
        description: "Only this user's keys.",
      },
    },
    example: 'api-keys:list --user 1',
    table: 'api_keys',
    async run(values, { query }) {
      const { where, parameters } = filterBy(values, 'user', 'user_id');
      const rows = await query<{
        id: number;
        user_id: number;
        name: string;
        prefix: string;
        mode: string;
        expires_at: Date;
        revoked_at: Date | null;
        last_used_at: Date | null;
        created_at: Date;
      }>(
        `SELECT id, user_id, name, prefix, mode, expires_at, revoked_at,
                last_used_at, created_at
           FROM api_keys ${where} ORDER BY id`,
        parameters,
      );
      const now = Date.now();
      return {
        api_keys: rows.map((row) => ({
          id: row.id,
          user_id: row.user_id,
          name: row.name,
          prefix: row.prefix,
          mode: row.mode,
          status: row.revoked_at
            ? 'revoked'
            : new Date(row.expires_at).getTime() <= now
              ? 'expired'
              : 'active',
          expires_at: timestamp(row.expires_at),
          last_used_at: timestamp(row.last_used_at),
          revoked_at: timestamp(row.revoked_at),
          created_at: timestamp(row.created_at),
        })),
      };
    },
  },
  'api-keys:revoke': {
    description:
      'Revoke an API key; every process refuses it within API_KEY_CACHE_TTL_MS.',
    options: {
      id: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'The key id (see api-keys:list).',
      },
    },
    example: 'api-keys:revoke --id 3',
    async run(values, { app }) {
      const { ApiKeyService } = await application();
      const id = integer(values, 'id');
      const apiKey = await (await app()).get(ApiKeyService).revoke(id);
      return { id: apiKey.id, revoked_at: formatTimestamp(apiKey.revokedAt) };
    },
  },
  'webhooks:list': {
    description:
      'List webhooks: store, URL, events, mode and last delivery (never the secret).',
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        description: "Only this store's webhooks.",
      },
    },
    example: 'webhooks:list --store 1',
    table: 'webhooks',
    async run(values, { query }) {
      const { where, parameters } = filterBy(values, 'store', 'store_id');
      const rows = await query<{
        id: number;
        store_id: number;
        url: string;
        events: string[];
        test_mode: boolean;
        last_sent_at: Date | null;
        created_at: Date;
      }>(
        `SELECT id, store_id, url, events, test_mode, last_sent_at, created_at
           FROM webhooks ${where} ORDER BY id`,
        parameters,
      );
      return {
        webhooks: rows.map((row) => ({
          ...row,
          last_sent_at: timestamp(row.last_sent_at),
          created_at: timestamp(row.created_at),
        })),
      };
    },
  },
  'stores:mail': {
    description:
      "Show or set a store's e-mail: From, Reply-To and the kinds it does not send (an empty value resets one).",
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'The store id.',
      },
      from: {
        type: 'string',
        value: '<mailbox>',
        description:
          'From, e.g. "Ann\'s Shop <shop@example.com>"; empty: MAIL_FROM under the store name.',
      },
      'reply-to': {
        type: 'string',
        value: '<mailbox>',
        description: 'Reply-To; empty: none.',
      },
      disable: {
        type: 'string',
        value: '<kinds>',
        description:
          'The kinds of e-mail the store does not send, comma-separated (order_receipt); empty: send all.',
      },
    },
    example: 'stores:mail --store 1 --from "Ann <ann@example.com>"',
    async run(values, { app, query }) {
      const id = integer(values, 'store');
      const [owner] = await query<{ user_id: number }>(
        `SELECT user_id FROM stores WHERE id = $1`,
        [id],
      );
      if (!owner) throw new UsageError(`There is no store ${id}`);
      const from = values.from as string | undefined;
      const replyTo = values['reply-to'] as string | undefined;
      const disable = values.disable as string | undefined;
      if (
        from !== undefined ||
        replyTo !== undefined ||
        disable !== undefined
      ) {
        const { StoreService } = await application();
        await (
          await app()
        )
          .get(StoreService)
          .update({ userId: owner.user_id, apiKeyId: 0, testMode: false }, id, {
            mailFrom: from === undefined ? undefined : from || null,
            mailReplyTo: replyTo === undefined ? undefined : replyTo || null,
            mailDisabledKinds:
              disable === undefined
                ? undefined
                : disable
                    .split(',')
                    .map((kind) => kind.trim())
                    .filter(Boolean),
          });
      }
      const [store] = await query<{
        mail_from: string | null;
        mail_reply_to: string | null;
        mail_disabled_kinds: string[];
      }>(
        `SELECT mail_from, mail_reply_to, mail_disabled_kinds FROM stores WHERE id = $1`,
        [id],
      );
      return { store_id: id, ...store };
    },
  },
  'mail:list': {
    description:
      'List recorded e-mail, newest first: kind, recipient, subject, status, attempts.',
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        description: "Only this store's messages.",
      },
      limit: {
        type: 'string',
        value: '<n>',
        integer: true,
        description: 'At most this many (default 50).',
      },
    },
    example: 'mail:list --store 1 --limit 20',
    table: 'messages',
    async run(values, { query }) {
      const { where, parameters } = filterBy(values, 'store', 'store_id');
      const limit = positiveInteger(values, 'limit') ?? 50;
      const rows = await query<{
        id: number;
        store_id: number;
        kind: string;
        to_address: string;
        subject: string | null;
        status: string;
        attempts: number;
        test_mode: boolean;
        created_at: Date;
      }>(
        `SELECT id, store_id, kind, to_address, subject, status, attempts,
                test_mode, created_at
           FROM mail_messages ${where}
          ORDER BY id DESC LIMIT $${parameters.length + 1}`,
        [...parameters, limit],
      );
      return {
        messages: rows.map((row) => ({
          id: row.id,
          store_id: row.store_id,
          kind: row.kind,
          to: row.to_address,
          subject: row.subject,
          status: row.status,
          attempts: row.attempts,
          test_mode: row.test_mode,
          created_at: timestamp(row.created_at),
        })),
      };
    },
  },
  'mail:show': {
    description:
      'Show one recorded e-mail: envelope, status, SMTP reply and its text part (or HTML).',
    options: {
      id: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'The message id (see mail:list).',
      },
      html: {
        type: 'boolean',
        description: 'Print the HTML part instead of the text part.',
      },
    },
    example: 'mail:show --id 1',
    async run(values, { query }) {
      const id = integer(values, 'id');
      const [row] = await query<{
        id: number;
        store_id: number;
        kind: string;
        cause_key: string;
        to_address: string;
        from_address: string | null;
        reply_to: string | null;
        subject: string | null;
        status: string;
        attempts: number;
        smtp_reply: string | null;
        message_id: string | null;
        test_mode: boolean;
        created_at: Date;
        sent_at: Date | null;
        html: string | null;
        text: string | null;
      }>(
        `SELECT id, store_id, kind, cause_key, to_address, from_address,
                reply_to, subject, status, attempts, smtp_reply, message_id,
                test_mode, created_at, sent_at, html, text
           FROM mail_messages WHERE id = $1`,
        [id],
      );
      if (!row) throw new UsageError(`There is no message ${id}`);
      const { html, text, to_address, from_address, ...fields } = row;
      return {
        ...fields,
        from: from_address,
        to: to_address,
        created_at: timestamp(row.created_at),
        sent_at: timestamp(row.sent_at),
        ...(values.html === true ? { html } : { text }),
      };
    },
  },
  'billing:renew': {
    description:
      'Run one renewal sweep (renewals, payment retries, unpausing, expiry) as of an instant.',
    options: {
      'as-of': {
        type: 'string',
        value: '<ISO 8601>',
        description: 'The instant to sweep at. Default: now.',
      },
    },
    example: 'billing:renew --as-of 2027-01-01T00:00:00Z',
    async run(values, { app, progress }) {
      const { RenewalService } = await application();
      const raw = values['as-of'];
      const asOf =
        raw === undefined ? new Date() : parseTimestamp(raw as string);
      if (!asOf)
        throw new UsageError(
          '--as-of must be an ISO 8601 date-time with a zone, e.g. 2026-12-01T00:00:00Z',
        );
      const context = await app();
      progress('Sweeping…');
      const { steps } = await context.get(RenewalService).sweep(asOf);
      return { as_of: formatTimestamp(asOf), steps };
    },
  },
  'seed:demo': {
    description:
      'Create the demo user, store, test-mode key and catalog (does nothing the second time).',
    options: {},
    example: 'seed:demo',
    async run(_, { app, progress }) {
      const { seedDemo } = await application();
      const context = await app();
      progress('Seeding the demo…');
      return seedDemo(context);
    },
  },
};
