import { Command, integer, required, UsageError } from '../command';
import { application, filterBy, storeOwner, timestamp } from './shared';

/** Stores: creation, listing, payment and mail settings. */
export const STORES_COMMANDS: Record<string, Command> = {
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
  'stores:tax': {
    description:
      "Show or set a store's tax settings: prices with or without tax, the countries it charges tax in, and who computes the tax (the built-in tables or Stripe Tax).",
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
      provider: {
        type: 'string',
        value: '<builtin|stripe>',
        description:
          "Who computes the tax: builtin (the shipped tables, default) or stripe (Stripe Tax, through the store's Stripe account, which must be connected in --mode).",
      },
      mode: {
        type: 'string',
        value: '<test|live>',
        description:
          'The mode whose Stripe account --provider stripe needs (default: live).',
      },
    },
    example: 'stores:tax --store 1 --inclusive yes --registrations DE,EU,GB',
    async run(values, { app, query }) {
      const id = integer(values, 'store');
      const owner = await storeOwner(query, id);
      const inclusive = values.inclusive as string | undefined;
      const registrations = values.registrations as string | undefined;
      const inclusiveValues: Record<string, boolean | null> = {
        yes: true,
        no: false,
        default: null,
      };
      if (inclusive !== undefined && !(inclusive in inclusiveValues))
        throw new UsageError('--inclusive takes yes, no or default');
      const provider = values.provider as string | undefined;
      if (
        provider !== undefined &&
        provider !== 'builtin' &&
        provider !== 'stripe'
      )
        throw new UsageError('--provider takes builtin or stripe');
      const mode = (values.mode as string | undefined) ?? 'live';
      if (mode !== 'test' && mode !== 'live')
        throw new UsageError('--mode takes test or live');
      if (
        inclusive !== undefined ||
        registrations !== undefined ||
        provider !== undefined
      ) {
        const { StoreService } = await application();
        await (
          await app()
        )
          .get(StoreService)
          .update({ ...owner, testMode: mode === 'test' }, id, {
            taxProvider: provider,
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
        tax_provider: string;
      }>(
        `SELECT country, tax_inclusive, tax_registrations, tax_provider FROM stores WHERE id = $1`,
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
          'The kinds of e-mail the store does not send, comma-separated (order_receipt, subscription_renewed, …: README "E-mail"); empty: send all.',
      },
    },
    example: 'stores:mail --store 1 --from "Ann <ann@example.com>"',
    async run(values, { app, query }) {
      const id = integer(values, 'store');
      const owner = await storeOwner(query, id);
      const from = values.from as string | undefined;
      const replyTo = values['reply-to'] as string | undefined;
      const disable = values.disable as string | undefined;
      if (
        from !== undefined ||
        replyTo !== undefined ||
        disable !== undefined
      ) {
        const { StoreService } = await application();
        await (await app()).get(StoreService).update(owner, id, {
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
};
