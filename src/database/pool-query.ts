import { escapeLiteral } from 'pg';
import type { Pool, PoolClient, QueryResult } from 'pg';
import {
  DataSource,
  EntityManager,
  QueryRunnerAlreadyReleasedError,
} from 'typeorm';

/** Data sources whose connections keep named statements prepared. */
const preparing = new WeakSet<DataSource>();

/**
 * Lets `poolQuery` prepare its named statements on this data source's
 * connections. On the embedded database too: its connections share one
 * PGlite session, and the multiplexer keeps their statement names apart
 * (`pglite-statement-names.ts`).
 */
export function usePreparedStatements(dataSource: DataSource): void {
  preparing.add(dataSource);
}

/**
 * A statement straight on the `pg` pool under TypeORM, for the hottest reads
 * and single-statement writes: TypeORM's `query()` makes a QueryRunner per
 * statement and broadcasts events around it, which costs more CPU than a
 * short indexed query. Runs in autocommit on a connection of its own, so
 * never inside a transaction (see `transactionQuery`).
 * The embedded database is served over the same protocol, so the pool is a
 * `pg` pool there too.
 *
 * `name`, for a constant SQL text with every value a parameter, prepares the
 * statement once per connection: PostgreSQL then skips parsing and, once it
 * settles on a generic plan, planning, which for an indexed lookup cost more
 * database CPU than running it. One name per distinct text.
 */
export async function poolQuery<T>(
  dataSource: DataSource,
  sql: string,
  parameters: unknown[],
  name?: string,
): Promise<T[]> {
  const { master } = dataSource.driver as unknown as { master: Pool };
  const result =
    name !== undefined && preparing.has(dataSource)
      ? await master.query({ name, text: sql, values: parameters })
      : await master.query(sql, parameters);
  return result.rows as T[];
}

/**
 * A statement on the connection of the transaction `manager` belongs to (as
 * `Transactions.run` hands it out), for the hot writes: with a `name` it is
 * prepared once per connection, as in `poolQuery`. Rows come back as the
 * driver returns them, for SELECT, INSERT and UPDATE alike. A manager
 * outside any transaction runs it on the pool in autocommit.
 */
export async function transactionQuery<T>(
  manager: EntityManager,
  sql: string,
  parameters: unknown[],
  name?: string,
): Promise<T[]> {
  const runner = manager.queryRunner;
  if (!runner) return poolQuery<T>(manager.connection, sql, parameters, name);
  // A lost connection releases the runner, and its transaction is gone: the
  // rest of it must fail, never run elsewhere and commit piecemeal.
  if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
  if (name !== undefined && preparing.has(manager.connection)) {
    const client = (await runner.connect()) as PoolClient;
    const result = await client.query({ name, text: sql, values: parameters });
    return result.rows as T[];
  }
  const result = await runner.query(sql, parameters, true);
  return result.records as T[];
}

/**
 * `column = $n` for one id, `column = ANY ($n)` for several. PostgreSQL
 * settles on a generic plan for a prepared statement with a scalar id after
 * five runs; with an array it re-plans every run, as its row estimate for
 * the generic plan never beats the custom one. Name the two statements apart
 * by `shape`.
 */
export function matchIds(
  column: string,
  ids: number[],
  position: number,
): { sql: string; value: number | number[]; shape: 'one' | 'many' } {
  return ids.length === 1
    ? { sql: `${column} = $${position}`, value: ids[0], shape: 'one' }
    : {
        sql: `${column} = ANY ($${position}::integer[])`,
        value: ids,
        shape: 'many',
      };
}

/**
 * The last statement of the transaction `manager` belongs to, and the
 * transaction's COMMIT, sent in one round trip: PostgreSQL runs the
 * statement and commits without waiting for the API to read the result and
 * answer. For a statement that takes a lock every concurrent transaction
 * queues on (a store's order- or invoice-number counter row), the lock is
 * then held for the statement and the commit's WAL flush only, not also
 * for the time the API's event loop, busy with other requests, takes to
 * read the result and send COMMIT (docs/performance.md, sessions 9 and 16).
 *
 * The same round trip opens a read-only transaction, which the caller's
 * `Transactions.run` then commits: nothing may be written after this
 * statement (a write fails, so a misplaced caller is found at once rather
 * than committed apart). A statement or commit that fails leaves nothing
 * committed, and the error reaches `Transactions.run` as any other would.
 *
 * The simple protocol that carries several statements takes no parameters,
 * so the values are written into the text as literals: null, integers,
 * booleans, strings, dates and arrays of integers only, and `sql` must hold no `$n`
 * inside its own quoted text. Outside a transaction it is `poolQuery`.
 */
export async function commitWith<T>(
  manager: EntityManager,
  sql: string,
  parameters: unknown[],
): Promise<T[]> {
  const runner = manager.queryRunner;
  if (!runner?.isTransactionActive)
    return poolQuery<T>(manager.connection, sql, parameters);
  if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
  const depth = (runner as unknown as { transactionDepth: number })
    .transactionDepth;
  if (depth !== 1)
    throw new Error('commitWith ends the outermost transaction only');
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    const position = Number(n);
    if (position < 1 || position > parameters.length)
      throw new Error(`commitWith: no value for $${n}`);
    return literal(parameters[position - 1]);
  });
  const client = (await runner.connect()) as PoolClient;
  const results = (await client.query(
    `${text};\nCOMMIT;\nSTART TRANSACTION READ ONLY`,
  )) as unknown as QueryResult[];
  return results[0].rows as T[];
}

/** A value as an SQL literal (see `commitWith` for the types it takes). */
function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw new Error(`commitWith: ${value} is not an integer`);
    return String(value);
  }
  if (typeof value === 'string') return escapeLiteral(value);
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  if (Array.isArray(value)) {
    for (const item of value)
      if (!Number.isSafeInteger(item))
        throw new Error(`commitWith: ${String(item)} is not an integer`);
    return `'{${value.join(',')}}'`;
  }
  throw new Error(`commitWith: no literal for a ${typeof value}`);
}
