import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CoreModule } from './app/core.module';
import { seedDemo } from './app/seed-demo';
import { AppError } from './common/app-error';
import { formatTimestamp, parseTimestamp } from './common/timestamps';
import { loadConfig } from './config/app-config';
import {
  closeDatabase,
  DatabaseConnection,
  openDatabase,
} from './database/database-connection';
import { runMigrations } from './database/migrate';
import { ApiKeyService } from './modules/account/api-key.service';
import { RenewalService } from './modules/billing/renewal.service';
import { UserService } from './modules/account/user.service';
import { StoreService } from './modules/store/store.service';

/** Bad arguments: printed without a stack, exit code 2. */
class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;

interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  /** Needs the application (services) rather than just the database. */
  run(
    values: Values,
    context: {
      database: DatabaseConnection;
      app: () => Promise<INestApplicationContext>;
    },
  ): Promise<object>;
}

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '')
    throw new UsageError(`--${name} is required`);
  return value;
}

function integer(values: Values, name: string): number {
  const raw = required(values, name);
  if (!/^[1-9]\d*$/.test(raw))
    throw new UsageError(`--${name} must be a positive integer`);
  return Number(raw);
}

const COMMANDS: Record<string, Command> = {
  migrate: {
    usage: 'migrate',
    options: {},
    async run(_, { database }) {
      return { applied: await runMigrations(database.url) };
    },
  },
  'users:create': {
    usage: 'users:create --email <email> --name <name> [--json]',
    options: { email: { type: 'string' }, name: { type: 'string' } },
    async run(values, { app }) {
      const user = await (await app()).get(UserService).create({
        email: required(values, 'email'),
        name: required(values, 'name'),
      });
      return { id: user.id, email: user.email, name: user.name };
    },
  },
  'stores:create': {
    usage:
      'stores:create --user <id> --name <name> [--slug <slug>] [--currency USD] [--country US] [--json]',
    options: {
      user: { type: 'string' },
      name: { type: 'string' },
      slug: { type: 'string' },
      currency: { type: 'string' },
      country: { type: 'string' },
    },
    async run(values, { app }) {
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
  'api-keys:create': {
    usage:
      'api-keys:create --user <id> --mode test|live [--name <name>] [--json]',
    options: {
      user: { type: 'string' },
      mode: { type: 'string' },
      name: { type: 'string' },
    },
    async run(values, { app }) {
      const mode = required(values, 'mode');
      if (mode !== 'test' && mode !== 'live')
        throw new UsageError('--mode must be test or live');
      const { apiKey, key } = await (
        await app()
      )
        .get(ApiKeyService)
        .create(
          integer(values, 'user'),
          mode,
          values.name as string | undefined,
        );
      return {
        id: apiKey.id,
        key,
        mode: apiKey.mode,
        name: apiKey.name,
        expires_at: formatTimestamp(apiKey.expiresAt),
      };
    },
  },
  'api-keys:revoke': {
    usage: 'api-keys:revoke --id <id> [--json]',
    options: { id: { type: 'string' } },
    async run(values, { app }) {
      const apiKey = await (
        await app()
      )
        .get(ApiKeyService)
        .revoke(integer(values, 'id'));
      return { id: apiKey.id, revoked_at: formatTimestamp(apiKey.revokedAt) };
    },
  },
  'billing:renew': {
    usage: 'billing:renew [--as-of <ISO 8601>] [--json]',
    options: { 'as-of': { type: 'string' } },
    async run(values, { app }) {
      const raw = values['as-of'];
      const asOf =
        raw === undefined ? new Date() : parseTimestamp(raw as string);
      if (!asOf)
        throw new UsageError(
          '--as-of must be an ISO 8601 date-time with a zone, e.g. 2026-12-01T00:00:00Z',
        );
      const { steps } = await (await app()).get(RenewalService).sweep(asOf);
      return { as_of: formatTimestamp(asOf), steps };
    },
  },
  'seed:demo': {
    usage: 'seed:demo [--json]',
    options: {},
    async run(_, { app }) {
      return seedDemo(await app());
    },
  },
};

function help(): string {
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
  ].join('\n');
}

function print(result: object, json: boolean) {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    for (const [name, value] of Object.entries(result))
      console.log(
        `${name}: ${Array.isArray(value) ? value.join(', ') || '(none)' : String(value)}`,
      );
  }
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(name ? `Unknown command "${name}".\n\n${help()}` : help());
    return 2;
  }
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    console.error(
      `${(error as Error).message}\n\nUsage: npm run cli -- ${command.usage}`,
    );
    return 2;
  }
  const json = values.json === true;
  const config = loadConfig();
  const database = await openDatabase(config);
  let context = null as INestApplicationContext | null;
  const app = async () => {
    if (database.embedded) await runMigrations(database.url);
    // Logs go to stderr so that stdout carries only the result.
    context ??= await NestFactory.createApplicationContext(
      CoreModule.forRoot(
        { ...config, logLevel: json ? 'silent' : 'warn' },
        database,
      ),
      {
        logger: ['error'],
      },
    );
    return context;
  };
  try {
    print(await command.run(values, { database, app }), json);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(
        `${error.message}\n\nUsage: npm run cli -- ${command.usage}`,
      );
      return 2;
    }
    if (error instanceof AppError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await context?.close();
    await closeDatabase(database);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
