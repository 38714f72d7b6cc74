import { readFileSync } from 'node:fs';
import type { Principal } from '../../common/principal';
import { formatTimestamp } from '../../common/timestamps';
import {
  CommandContext,
  positiveInteger,
  UsageError,
  Values,
} from '../command';

export const application = () => import('../application.js');

export const timestamp = (value: Date | string | null) =>
  value === null ? null : formatTimestamp(new Date(value));

/** `--user <id>` as a list filter: the SQL condition and its parameter. */
export function filterBy(values: Values, option: string, column: string) {
  const id = positiveInteger(values, option);
  return id === undefined
    ? { where: '', parameters: [] }
    : { where: `WHERE ${column} = $1`, parameters: [id] };
}

/**
 * The CLI acts as the owner of the record it changes: the services then
 * apply exactly the scoping and rules an API key of that user and mode gets.
 */
export async function ownerOf(
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

/** The owner of a store, acting on its settings (which no mode scopes). */
export function storeOwner(
  query: CommandContext['query'],
  id: number,
): Promise<Principal> {
  return ownerOf(
    query,
    'store',
    'SELECT user_id FROM stores WHERE id = $1',
    id,
  );
}

/** A JSON:API document from a file, as a request body would carry it. */
export function readDocument(file: string): unknown {
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
export async function rendered(
  context: Awaited<ReturnType<CommandContext['app']>>,
  type: 'products' | 'variants' | 'orders',
  record: unknown,
): Promise<Record<string, unknown>> {
  const { JsonApi } = await application();
  const resource = context.get(JsonApi).render(type, record);
  return { type: resource.type, id: resource.id, ...resource.attributes };
}

export const MODE_OPTION = {
  type: 'string',
  value: 'test|live',
  description:
    'The mode of the records, as an API key of that mode. Default: test.',
} as const;

export function mode(values: Values): boolean {
  const given = values.mode ?? 'test';
  if (given !== 'test' && given !== 'live')
    throw new UsageError('--mode must be test or live');
  return given === 'test';
}
