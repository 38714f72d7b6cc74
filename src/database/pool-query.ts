import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

/** Data sources whose connections keep named statements prepared. */
const preparing = new WeakSet<DataSource>();

/**
 * Lets `poolQuery` prepare its named statements on this data source's
 * connections. Off on the embedded database: its connections share one
 * PGlite session, where the same name from two connections would collide.
 */
export function usePreparedStatements(dataSource: DataSource): void {
  preparing.add(dataSource);
}

/**
 * A read straight on the `pg` pool under TypeORM, for the hottest reads:
 * TypeORM's `query()` makes a QueryRunner per statement and broadcasts
 * events around it, which costs more CPU than a short indexed query. Not for
 * writes or anything inside a transaction (it takes its own connection).
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
