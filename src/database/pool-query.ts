import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

/**
 * A read straight on the `pg` pool under TypeORM, for the hottest reads:
 * TypeORM's `query()` makes a QueryRunner per statement and broadcasts
 * events around it, which costs more CPU than a short indexed query. Not for
 * writes or anything inside a transaction (it takes its own connection).
 * The embedded database is served over the same protocol, so the pool is a
 * `pg` pool there too.
 */
export async function poolQuery<T>(
  dataSource: DataSource,
  sql: string,
  parameters: unknown[],
): Promise<T[]> {
  const { master } = dataSource.driver as unknown as { master: Pool };
  const result = await master.query(sql, parameters);
  return result.rows as T[];
}
