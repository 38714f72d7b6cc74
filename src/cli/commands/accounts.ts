import { formatTimestamp } from '../../common/timestamps';
import {
  Command,
  integer,
  positiveInteger,
  required,
  UsageError,
} from '../command';
import { application, timestamp, filterBy } from './shared';

/** Users and their API keys. */
export const ACCOUNTS_COMMANDS: Record<string, Command> = {
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
};
