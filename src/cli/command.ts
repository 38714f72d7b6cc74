import { INestApplicationContext } from '@nestjs/common';
import { DatabaseConnection } from '../database/database-connection';

/** Bad arguments: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** A command's result printed as it is (a CSV document), not as fields or a table. */
export class TextOutput {
  constructor(
    readonly text: string,
    /** Its name in the `--json` object. */
    readonly format: string,
  ) {}
}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export type Values = Record<string, string | boolean | undefined>;

export interface Option {
  type: 'string' | 'boolean';
  /** The value's placeholder in the usage line, e.g. `<id>`. */
  value?: string;
  required?: boolean;
  /** A positive integer (an id, a number of days), checked before anything opens. */
  integer?: boolean;
  description: string;
}

/** A positional argument, e.g. `webhooks:test <id>`, in the order given. */
export interface Argument {
  name: string;
  required?: boolean;
  /** A positive integer (an id), checked before anything opens. */
  integer?: boolean;
  description: string;
}

export interface CommandContext {
  database: DatabaseConnection;
  /** The application (services), started on first use. */
  app: () => Promise<INestApplicationContext>;
  /** Rows of a read-only query, without starting the application. */
  query: <T>(sql: string, parameters?: unknown[]) => Promise<T[]>;
  /** A progress line on stderr (never on stdout, which carries the result). */
  progress: (message: string) => void;
}

export interface Command {
  /** One line: what the command does. */
  description: string;
  options: Record<string, Option>;
  /** Positional arguments; their values are in `values` under their names. */
  arguments?: Argument[];
  /** A command line that works as printed (after `npm run cli -- `). */
  example: string;
  /** The result's list to print as a table, when it is a list. */
  table?: string;
  run(values: Values, context: CommandContext): Promise<object>;
}

export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '')
    throw new UsageError(`--${name} is required`);
  return value;
}

export function positiveInteger(
  values: Values,
  name: string,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (
    typeof raw !== 'string' ||
    !/^[1-9]\d*$/.test(raw) ||
    Number(raw) > 2_147_483_647
  )
    throw new UsageError(`--${name} must be a positive integer`);
  return Number(raw);
}

export function integer(values: Values, name: string): number {
  required(values, name);
  return positiveInteger(values, name) as number;
}
