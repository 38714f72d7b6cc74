import type { Pool, PoolClient } from 'pg';
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
