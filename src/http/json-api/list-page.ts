import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery } from './list-query';
import { Page } from './resource';

/**
 * The ORDER BY of a list query. `sortColumns` maps each sortable attribute
 * to its column (`alias.column`); the parser has already refused any other.
 * The id tie-breaker follows the last key's direction so that one index
 * (e.g. `(store_id, test_mode, name, id)`) serves the whole ORDER BY and pages
 * never overlap.
 */
function orderKeys(
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
): { column: string; direction: 'ASC' | 'DESC' }[] {
  const id = `${alias}.id`;
  const keys = query.sort.map((key) => {
    const column = sortColumns[key.field];
    if (!column) throw new Error(`No column to sort ${alias} by ${key.field}`);
    return { column, direction: key.descending ? 'DESC' : 'ASC' } as const;
  });
  if (!keys.some((key) => key.column === id)) {
    const last = query.sort[query.sort.length - 1];
    keys.push({ column: id, direction: last?.descending ? 'DESC' : 'ASC' });
  }
  return keys;
}

/** Orders and pages `builder` by a list query. */
export function applyListPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
): SelectQueryBuilder<T> {
  for (const { column, direction } of orderKeys(alias, sortColumns, query))
    builder.addOrderBy(column, direction);
  return builder
    .offset((query.page.number - 1) * query.page.size)
    .limit(query.page.size);
}

/**
 * One page of `table` across a user's stores, for hand-written SQL.
 *
 * `store_id IN (the user's stores) ORDER BY …` makes PostgreSQL read and sort
 * every row of those stores before it can return the first page: the
 * `(store_id, test_mode, <sort>)` indexes keep rows in order within one store
 * only (about 200 ms at a million orders, growing with them). Here each store
 * gives its first offset + size rows, read in index order, and only those are
 * merged and paged. Deep pages cost what they cost in one store.
 *
 * `where` is the condition on `alias` besides the store (mode, filters); the
 * user's id is the parameter `userIdParameter` (e.g. `$1`).
 */
export function storeScopedPageSql(options: {
  select: string;
  table: string;
  alias: string;
  userIdParameter: string;
  where: string;
  sortColumns: Record<string, string>;
  query: ListQuery;
}): string {
  const { select, table, alias, userIdParameter, where, sortColumns, query } =
    options;
  const order = orderKeys(alias, sortColumns, query)
    .map(({ column, direction }) => `${column} ${direction}`)
    .join(', ');
  // Integers from the parser, so safe to inline.
  const size = Math.trunc(query.page.size);
  const offset = (Math.trunc(query.page.number) - 1) * size;
  return `SELECT ${select}
    FROM stores page_store
    CROSS JOIN LATERAL (
      SELECT ${alias}.* FROM ${table} ${alias}
       WHERE ${alias}.store_id = page_store.id AND ${where}
       ORDER BY ${order} LIMIT ${offset + size}
    ) ${alias}
   WHERE page_store.user_id = ${userIdParameter}
   ORDER BY ${order} LIMIT ${size} OFFSET ${offset}`;
}

/** Sort columns for attributes stored in same-named columns of `alias`. */
export function sameNameColumns(
  alias: string,
  names: readonly string[],
): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, `${alias}.${name}`]));
}

/** One page of records and the total that matches, in one call. */
export async function listPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
): Promise<Page<T>> {
  const [records, total] = await applyListPage(
    builder,
    alias,
    sortColumns,
    query,
  ).getManyAndCount();
  return { records, total };
}
