import { readFileSync, writeFileSync } from 'node:fs';
import type { Principal } from '../common/principal';
import { formatTimestamp, parseTimestamp } from '../common/timestamps';
import {
  Command,
  CommandContext,
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
 * The CLI acts as the owner of the record it changes: the services then
 * apply exactly the scoping and rules an API key of that user and mode gets.
 */
async function ownerOf(
  query: CommandContext['query'],
  what: string,
  sql: string,
  id: string | number,
): Promise<Principal> {
  const [row] = await query<{ user_id: number; test_mode?: boolean }>(sql, [
    Number(id),
  ]);
  if (!row) throw new Error(`${what} ${id} does not exist`);
  return { userId: row.user_id, apiKeyId: 0, testMode: row.test_mode ?? true };
}

/** A JSON:API document from a file, as a request body would carry it. */
function readDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
}

/** A resource as the API renders it, flattened for printing: type, id, attributes. */
async function rendered(
  context: Awaited<ReturnType<CommandContext['app']>>,
  type: 'products' | 'variants' | 'orders',
  record: unknown,
): Promise<Record<string, unknown>> {
  const { JsonApi } = await application();
  const resource = context.get(JsonApi).render(type, record);
  return { type: resource.type, id: resource.id, ...resource.attributes };
}

const MODE_OPTION = {
  type: 'string',
  value: 'test|live',
  description:
    'The mode of the records, as an API key of that mode. Default: test.',
} as const;

function mode(values: Values): boolean {
  const given = values.mode ?? 'test';
  if (given !== 'test' && given !== 'live')
    throw new UsageError('--mode must be test or live');
  return given === 'test';
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
  'stores:payments': {
    description:
      "Connect a store's Stripe account for one mode (test keys for test, live keys for live), or disconnect it. The keys are stored sealed and never printed.",
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'The store (an id).',
      },
      mode: {
        type: 'string',
        value: 'test|live',
        required: true,
        description: 'The mode whose Stripe account this is.',
      },
      'secret-key': {
        type: 'string',
        value: '<sk_…>',
        description: 'Secret (sk_…) or restricted (rk_…) key of that mode.',
      },
      'publishable-key': {
        type: 'string',
        value: '<pk_…>',
        description: 'Publishable key of that mode.',
      },
      'webhook-secret': {
        type: 'string',
        value: '<whsec_…>',
        description: "Signing secret of the store's Stripe webhook endpoint.",
      },
      disconnect: {
        type: 'boolean',
        description: 'Remove the Stripe account of that mode instead.',
      },
    },
    example:
      'stores:payments --store 1 --mode test --secret-key sk_test_… --publishable-key pk_test_… --webhook-secret whsec_…',
    async run(values, { app }) {
      const { StoreService } = await application();
      const mode = required(values, 'mode');
      if (mode !== 'test' && mode !== 'live')
        throw new UsageError('--mode must be test or live');
      const storeId = integer(values, 'store');
      const disconnect = values.disconnect === true;
      const given = ['secret-key', 'publishable-key', 'webhook-secret'].filter(
        (name) => values[name] !== undefined,
      );
      if (disconnect && given.length > 0)
        throw new UsageError('--disconnect takes no keys');
      if (!disconnect && given.length < 3)
        throw new UsageError(
          '--secret-key, --publishable-key and --webhook-secret are required (or --disconnect)',
        );
      await (await app()).get(StoreService).setStripe(
        storeId,
        mode === 'test',
        disconnect
          ? null
          : {
              secret_key: values['secret-key'],
              publishable_key: values['publishable-key'],
              webhook_secret: values['webhook-secret'],
            },
      );
      return { store_id: storeId, mode, configured: !disconnect };
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
  'products:create': {
    description:
      'Create a product from a JSON:API document file (the body of POST /v1/products), with the same checks.',
    options: {
      file: {
        type: 'string',
        value: '<path>',
        required: true,
        description:
          'A JSON file: {"data": {"type": "products", "attributes": {…}, "relationships": {"store": {"data": {"type": "stores", "id": "1"}}}}}.',
      },
      mode: MODE_OPTION,
    },
    example: 'products:create --file catalog/ebook.json',
    async run(values, { app, query, progress }) {
      const { parseWriteDocument, PRODUCT_CREATE, ProductService } =
        await application();
      const testMode = mode(values);
      const document = parseWriteDocument(
        readDocument(required(values, 'file')),
        PRODUCT_CREATE,
      );
      const storeId = document.relationships.store as string;
      const principal = {
        ...(await ownerOf(
          query,
          'store',
          'SELECT user_id FROM stores WHERE id = $1',
          storeId,
        )),
        testMode,
      };
      const context = await app();
      progress('Creating the product…');
      const product = await context
        .get(ProductService)
        .create(principal, Number(storeId), document.attributes);
      return rendered(context, 'products', product);
    },
  },
  'variants:create': {
    description:
      "Create a variant of a product from a JSON:API document file (the body of POST /v1/variants), in the product's mode.",
    options: {
      file: {
        type: 'string',
        value: '<path>',
        required: true,
        description:
          'A JSON file: {"data": {"type": "variants", "attributes": {…}, "relationships": {"product": {"data": {"type": "products", "id": "1"}}}}}.',
      },
    },
    example: 'variants:create --file catalog/ebook-deluxe.json',
    async run(values, { app, query, progress }) {
      const { parseWriteDocument, VARIANT_CREATE, VariantService } =
        await application();
      const document = parseWriteDocument(
        readDocument(required(values, 'file')),
        VARIANT_CREATE,
      );
      const productId = document.relationships.product as string;
      const principal = await ownerOf(
        query,
        'product',
        `SELECT s.user_id, p.test_mode FROM products p
           JOIN stores s ON s.id = p.store_id WHERE p.id = $1`,
        productId,
      );
      const context = await app();
      progress('Creating the variant…');
      const variant = await context
        .get(VariantService)
        .create(principal, Number(productId), document.attributes);
      return rendered(context, 'variants', variant);
    },
  },
  'webhooks:test': {
    description:
      'Send one signed "ping" to a webhook, as a delivery is sent, and print what the receiver answered.',
    arguments: [
      {
        name: 'id',
        required: true,
        integer: true,
        description: 'The webhook id (see webhooks:list).',
      },
    ],
    options: {},
    example: 'webhooks:test 1',
    async run(values, { app, query, progress }) {
      const { WebhookDeliveryService } = await application();
      const id = Number(values.id);
      const principal = await ownerOf(
        query,
        'webhook',
        `SELECT s.user_id, w.test_mode FROM webhooks w
           JOIN stores s ON s.id = w.store_id WHERE w.id = $1`,
        id,
      );
      const context = await app();
      progress('Sending the ping…');
      const result = await context
        .get(WebhookDeliveryService)
        .sendTest(principal, id);
      if (result.error !== null && result.responseCode === null)
        throw new Error(`No answer from the receiver: ${result.error}`);
      return {
        webhook_id: id,
        event_name: 'ping',
        response_code: result.responseCode,
        succeeded: result.error === null,
        duration_ms: result.durationMs,
        error: result.error,
      };
    },
  },
  'orders:refund': {
    description:
      'Refund an order, in full or in part (as POST /v1/orders/:id/refund); emits order_refunded.',
    arguments: [
      {
        name: 'id',
        required: true,
        integer: true,
        description: 'The order id.',
      },
    ],
    options: {
      amount: {
        type: 'string',
        value: '<cents>',
        description:
          'The amount to refund in cents of the order currency. Default: all that is left.',
      },
    },
    example: 'orders:refund 42 --amount 500',
    async run(values, { app, query, progress }) {
      const { OrderService, parseWriteDocument, RefundAttributes } =
        await application();
      const id = String(values.id);
      const raw = values.amount;
      const amount =
        raw === undefined
          ? undefined
          : /^-?\d+$/.test(String(raw))
            ? Number(raw)
            : String(raw);
      // The API's body, so the amount gets the API's checks and messages.
      const document = parseWriteDocument(
        {
          data: {
            type: 'orders',
            id,
            attributes: amount === undefined ? {} : { amount },
          },
        },
        { type: 'orders', attributes: RefundAttributes, update: true },
        id,
      );
      const principal = await ownerOf(
        query,
        'order',
        `SELECT s.user_id, o.test_mode FROM orders o
           JOIN stores s ON s.id = o.store_id WHERE o.id = $1`,
        id,
      );
      const context = await app();
      progress('Refunding…');
      const order = await context
        .get(OrderService)
        .refund(principal, Number(id), document.attributes.amount);
      return rendered(context, 'orders', order);
    },
  },
  'db:export': {
    description:
      'Write the embedded database as a plain SQL dump (schema and data, as pg_dump writes it) that psql loads into PostgreSQL.',
    arguments: [
      {
        name: 'file',
        description:
          'Where to write the dump. Default: zest-export-<date>.sql in the current directory.',
      },
    ],
    options: {},
    example: 'db:export zest.sql',
    async run(values, { database, progress }) {
      if (!database.embedded)
        throw new UsageError(
          'db:export reads the embedded database; with DATABASE_URL set, use pg_dump',
        );
      const file =
        (values.file as string | undefined) ??
        `zest-export-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}.sql`;
      progress('Dumping (pg_dump)…');
      const sql = await database.embedded.dump();
      writeFileSync(file, sql, { mode: 0o600, flag: 'wx' });
      return {
        file,
        bytes: Buffer.byteLength(sql),
        tables: (sql.match(/^CREATE TABLE /gm) ?? []).length,
        // API-key hashes and webhook secrets are keyed with APP_KEY.
        next: `psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f ${file}, then start Zest with that DATABASE_URL and the same APP_KEY (if it was never set, the one in DATA_DIR/app-key)`,
      };
    },
  },
  'stores:tax': {
    description:
      "Show or set a store's tax settings: prices with or without tax, and the countries it charges tax in.",
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'The store id.',
      },
      inclusive: {
        type: 'string',
        value: '<yes|no|default>',
        description:
          'Whether prices include tax; default: TAX_INCLUSIVE of the deployment.',
      },
      registrations: {
        type: 'string',
        value: '<countries>',
        description:
          'Comma-separated country codes the store charges tax in (EU: the One-Stop Shop, all 27); empty: wherever the rules require.',
      },
    },
    example: 'stores:tax --store 1 --inclusive yes --registrations DE,EU,GB',
    async run(values, { app, query }) {
      const id = integer(values, 'store');
      const [owner] = await query<{ user_id: number }>(
        `SELECT user_id FROM stores WHERE id = $1`,
        [id],
      );
      if (!owner) throw new UsageError(`There is no store ${id}`);
      const inclusive = values.inclusive as string | undefined;
      const registrations = values.registrations as string | undefined;
      const inclusiveValues: Record<string, boolean | null> = {
        yes: true,
        no: false,
        default: null,
      };
      if (inclusive !== undefined && !(inclusive in inclusiveValues))
        throw new UsageError('--inclusive takes yes, no or default');
      if (inclusive !== undefined || registrations !== undefined) {
        const { StoreService } = await application();
        await (
          await app()
        )
          .get(StoreService)
          .update({ userId: owner.user_id, apiKeyId: 0, testMode: false }, id, {
            taxInclusive:
              inclusive === undefined ? undefined : inclusiveValues[inclusive],
            taxRegistrations:
              registrations === undefined
                ? undefined
                : registrations.trim()
                  ? registrations.split(',')
                  : null,
          });
      }
      const [store] = await query<{
        country: string;
        tax_inclusive: boolean | null;
        tax_registrations: string[] | null;
      }>(
        `SELECT country, tax_inclusive, tax_registrations FROM stores WHERE id = $1`,
        [id],
      );
      return { store_id: id, ...store };
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
    arguments: [
      {
        name: 'id',
        required: true,
        integer: true,
        description: 'The message id (see mail:list).',
      },
    ],
    options: {
      html: {
        type: 'boolean',
        description: 'Print the HTML part instead of the text part.',
      },
    },
    example: 'mail:show 1',
    async run(values, { query }) {
      const id = Number(values.id);
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
  'payments:sweep': {
    description:
      'Settle the payment attempts left pending between the processor call and its outcome (a crash, a processor outage), as the worker does every minute.',
    options: {
      'older-than': {
        type: 'string',
        value: '<seconds>',
        description:
          'Only attempts pending for at least this long (younger ones may still be settling in their request). Default: 60.',
      },
    },
    example: 'payments:sweep --older-than 300',
    async run(values, { app, progress }) {
      const { PaymentAttempts } = await application();
      const raw = values['older-than'];
      const seconds = raw === undefined ? 60 : Number(raw);
      if (!Number.isSafeInteger(seconds) || seconds < 0)
        throw new UsageError('--older-than must be a whole number of seconds');
      const context = await app();
      progress('Settling…');
      const settled = await context.get(PaymentAttempts).sweep(seconds * 1000);
      return { settled };
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
