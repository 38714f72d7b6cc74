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

/** The same for hand-written SQL: `ORDER BY … LIMIT … OFFSET …`. */
export function listPageSql(
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
): string {
  const order = orderKeys(alias, sortColumns, query)
    .map(({ column, direction }) => `${column} ${direction}`)
    .join(', ');
  // Integers from the parser, so safe to inline.
  const size = Math.trunc(query.page.size);
  const offset = (Math.trunc(query.page.number) - 1) * size;
  return `ORDER BY ${order} LIMIT ${size} OFFSET ${offset}`;
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
