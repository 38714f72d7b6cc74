import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { AppError } from './common/app-error';
import {
  Command,
  EXIT,
  positiveInteger,
  TextOutput,
  UsageError,
  Values,
} from './cli/command';
import { COMMANDS } from './cli/commands';
import { commandHelp, helpDocument, rootHelp, usage } from './cli/help';
import type { DatabaseConnection } from './database/database-connection';

const HELP = new Set(['--help', '-h', 'help']);

function print(result: object, command: Command, json: boolean) {
  if (result instanceof TextOutput) {
    process.stdout.write(
      json
        ? `${JSON.stringify({ [result.format]: result.text })}\n`
        : result.text,
    );
    return;
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const rows = command.table
    ? (result as Record<string, Record<string, unknown>[]>)[command.table]
    : undefined;
  if (rows) {
    console.log(table(rows));
    return;
  }
  for (const [name, value] of Object.entries(result))
    console.log(`${name}: ${cell(value)}`);
}

function cell(value: unknown): string {
  if (Array.isArray(value)) return value.join(', ') || '(none)';
  if (value === null || value === undefined) return '-';
  return typeof value === 'object'
    ? JSON.stringify(value)
    : String(value as string);
}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]);
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((line) => line[i].length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

/** A service's error as the API would name it: each detail with its JSON pointer. */
function failureMessage(error: unknown): string {
  if (error instanceof AppError) {
    const details = error.errors.map((e) => {
      const where =
        e.source && 'pointer' in e.source ? `${e.source.pointer}: ` : '';
      return `${where}${e.detail}`;
    });
    if (details.length > 0) return details.join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}

/** With --json, a failure is one JSON object on stdout too; the message also goes to stderr. */
function fail(code: number, message: string, json: boolean): number {
  console.error(message);
  if (json)
    process.stdout.write(
      `${JSON.stringify({ error: message.split('\n')[0], exit_code: code })}\n`,
    );
  return code;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const wantsJson = argv.includes('--json');
  if (name === undefined || HELP.has(name)) {
    const topic =
      name === 'help' ? rest.find((a) => !a.startsWith('-')) : undefined;
    if (topic !== undefined && !Object.hasOwn(COMMANDS, topic))
      return fail(
        EXIT.usage,
        `Unknown command "${topic}".\n\n${rootHelp(COMMANDS)}`,
        wantsJson,
      );
    if (wantsJson)
      process.stdout.write(
        `${JSON.stringify(helpDocument(COMMANDS, topic))}\n`,
      );
    else if (topic) console.log(commandHelp(topic, COMMANDS[topic]));
    else if (name === undefined) {
      console.error(rootHelp(COMMANDS));
      return EXIT.usage;
    } else console.log(rootHelp(COMMANDS));
    return EXIT.ok;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command)
    return fail(
      EXIT.usage,
      `Unknown command "${name}".\n\n${rootHelp(COMMANDS)}`,
      wantsJson,
    );
  if (rest.some((arg) => arg === '--help' || arg === '-h')) {
    if (wantsJson)
      process.stdout.write(`${JSON.stringify(helpDocument(COMMANDS, name))}\n`);
    else console.log(commandHelp(name, command));
    return EXIT.ok;
  }
  let values: Values;
  try {
    let positionals: string[];
    ({ values, positionals } = parseArgs({
      args: rest,
      options: {
        ...Object.fromEntries(
          Object.entries(command.options).map(([option, spec]) => [
            option,
            { type: spec.type },
          ]),
        ),
        json: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: true,
    }));
    const declared = command.arguments ?? [];
    if (positionals.length > declared.length)
      throw new UsageError(
        `Unexpected argument "${positionals[declared.length]}"`,
      );
    declared.forEach((argument, i) => (values[argument.name] = positionals[i]));
  } catch (error) {
    return fail(
      EXIT.usage,
      `${(error as Error).message}\n\nUsage: ${usage(name, command)}\nMore: npm run cli -- ${name} --help`,
      wantsJson,
    );
  }
  const json = values.json === true;
  // Progress is for a person waiting: on stderr, and not when a program
  // reads --json from a pipe.
  const progress = (message: string) => {
    if (!json || process.stderr.isTTY) process.stderr.write(`${message}\n`);
  };
  let database: DatabaseConnection | null = null;
  let context = null as INestApplicationContext | null;
  let migrated = false;
  let close: (connection: DatabaseConnection) => Promise<void> = async () => {};
  try {
    for (const [option, spec] of Object.entries(command.options)) {
      if (spec.required && values[option] === undefined)
        throw new UsageError(`--${option} is required`);
      if (spec.integer) positiveInteger(values, option);
    }
    for (const argument of command.arguments ?? []) {
      const given = values[argument.name];
      if (argument.required && given === undefined)
        throw new UsageError(`<${argument.name}> is required`);
      if (
        argument.integer &&
        given !== undefined &&
        !/^[1-9]\d{0,17}$/.test(String(given))
      )
        throw new UsageError(`<${argument.name}> must be a positive integer`);
    }
    const { Client, closeDatabase, loadConfig, openDatabase, runMigrations } =
      await import('./cli/runtime.js');
    close = closeDatabase;
    const config = loadConfig();
    progress(
      config.database.url
        ? 'Connecting to PostgreSQL (DATABASE_URL)…'
        : `Opening the embedded database in ${config.database.dataDir}…`,
    );
    const db = await openDatabase(config);
    database = db;
    const migrateEmbedded = async () => {
      if (!db.embedded || migrated) return;
      progress('Applying pending migrations…');
      await runMigrations(db.url);
      migrated = true;
    };
    const app = async () => {
      if (context) return context;
      await migrateEmbedded();
      progress('Starting the application (services and queues)…');
      const { CoreModule, NestFactory } = await import('./cli/application.js');
      // Logs go to stderr so that stdout carries only the result.
      context = await NestFactory.createApplicationContext(
        CoreModule.forRoot(
          { ...config, logLevel: json ? 'silent' : 'warn' },
          db,
        ),
        { logger: ['error'] },
      );
      return context;
    };
    const query = async <T>(sql: string, parameters: unknown[] = []) => {
      await migrateEmbedded();
      const client = new Client({
        connectionString: db.url,
        connectionTimeoutMillis: 10_000,
        application_name: 'zest-cli',
      });
      await client.connect();
      try {
        return (await client.query(sql, parameters)).rows as T[];
      } catch (error) {
        // undefined_table: a database that was never migrated.
        if ((error as { code?: string }).code === '42P01')
          throw new Error(
            `${(error as Error).message}: run \`npm run cli -- migrate\` first`,
          );
        throw error;
      } finally {
        await client.end();
      }
    };
    print(
      await command.run(values, { database: db, app, query, progress }),
      command,
      json,
    );
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError)
      return fail(
        EXIT.usage,
        `${error.message}\n\nUsage: ${usage(name, command)}\nMore: npm run cli -- ${name} --help`,
        json || wantsJson,
      );
    return fail(EXIT.failure, failureMessage(error), json || wantsJson);
  } finally {
    await context?.close();
    if (database) await close(database);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(EXIT.failure);
  },
);
