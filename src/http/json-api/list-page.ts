import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery } from './list-query';
import { Page } from './resource';

/**
 * Orders and pages `builder` by a list query. `sortColumns` maps each sortable
 * attribute to its column (`alias.column`); the parser has already refused any
 * other. The id tie-breaker follows the last key's direction so that one index
 * (e.g. `(store_id, test_mode, name, id)`) serves the whole ORDER BY and pages
 * never overlap.
 */
export function applyListPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
): SelectQueryBuilder<T> {
  const id = `${alias}.id`;
  let sortedById = false;
  for (const key of query.sort) {
    const column = sortColumns[key.field];
    if (!column) throw new Error(`No column to sort ${alias} by ${key.field}`);
    builder.addOrderBy(column, key.descending ? 'DESC' : 'ASC');
    sortedById ||= column === id;
  }
  if (!sortedById) {
    const last = query.sort[query.sort.length - 1];
    builder.addOrderBy(id, last?.descending ? 'DESC' : 'ASC');
  }
  return builder
    .offset((query.page.number - 1) * query.page.size)
    .limit(query.page.size);
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
