import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery, Page } from '../common/list-query';

export type OrderKeys = { column: string; direction: 'ASC' | 'DESC' }[];

/**
 * The ORDER BY of a list query. `sortColumns` maps each sortable attribute
 * to its column (`alias.column`); the parser has already refused any other.
 * The id tie-breaker follows the last key's direction so that one index
 * (e.g. `(store_id, test_mode, name, id)`) serves the whole ORDER BY and pages
 * never overlap.
 */
export function orderKeys(
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
): OrderKeys {
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
  const { size, offset } = pageBounds(query);
  return builder.offset(offset).limit(size);
}

/** A page's size and offset; integers from the parser, so safe to inline. */
export function pageBounds(query: ListQuery) {
  const size = Math.trunc(query.page.size);
  return { size, offset: (Math.trunc(query.page.number) - 1) * size };
}

export function orderBySql(keys: OrderKeys): string {
  return keys
    .map(({ column, direction }) => `${column} ${direction}`)
    .join(', ');
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
