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

/** A page's size and offset; integers from the parser, so safe to inline. */
function pageBounds(query: ListQuery) {
  const size = Math.trunc(query.page.size);
  return { size, offset: (Math.trunc(query.page.number) - 1) * size };
}

/**
 * Merges per-store pages: `perStore` is a query over one store, the one in
 * `page_store.id`, already ordered and limited to offset + size rows.
 *
 * `store_id IN (the user's stores) ORDER BY …` makes PostgreSQL read and sort
 * every row of those stores before it can return the first page: the
 * `(store_id, test_mode, <sort>)` indexes keep rows in order within one store
 * only (about 200 ms at a million orders, growing with them). Here each store
 * gives its first offset + size rows, read in index order, and only those are
 * merged and paged. Deep pages cost what they cost in one store.
 */
function acrossStoresSql(options: {
  select: string;
  perStore: string;
  alias: string;
  userIdParameter: string;
  order: string;
  query: ListQuery;
}): string {
  const { size, offset } = pageBounds(options.query);
  return `SELECT ${options.select}
    FROM stores page_store
    CROSS JOIN LATERAL (${options.perStore}) ${options.alias}
   WHERE page_store.user_id = ${options.userIdParameter}
   ORDER BY ${options.order} LIMIT ${size} OFFSET ${offset}`;
}

/**
 * One page of `table` across a user's stores, for hand-written SQL (see
 * `acrossStoresSql`). `where` is the condition on `alias` besides the store
 * (mode, filters); the user's id is the parameter `userIdParameter` (`$1`).
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
  const { table, alias, where, sortColumns, query } = options;
  const order = orderKeys(alias, sortColumns, query)
    .map(({ column, direction }) => `${column} ${direction}`)
    .join(', ');
  const { size, offset } = pageBounds(query);
  return acrossStoresSql({
    ...options,
    perStore: `SELECT ${alias}.* FROM ${table} ${alias}
       WHERE ${alias}.store_id = page_store.id AND ${where}
       ORDER BY ${order} LIMIT ${offset + size}`,
    order,
  });
}

/**
 * `listPage` for a builder over a table with store_id, scoped to the stores
 * of user `userId`: the page's ids come from the per-store merge (see
 * `acrossStoresSql`), then the builder loads those records; the total is the
 * builder's count. For lists read outside any transaction (the ids are
 * read through the data source's pool).
 */
export async function storeScopedListPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
  userId: number,
): Promise<Page<T>> {
  const keys = orderKeys(alias, sortColumns, query);
  const { size, offset } = pageBounds(query);
  const perStore = builder
    .clone()
    .select(`${alias}.id`, 'page_id')
    .andWhere(`${alias}.store_id = page_store.id`)
    .orderBy()
    .limit(offset + size);
  // The id is selected once (TypeORM garbles a column selected twice).
  const outerKeys = keys.map(({ column, direction }, i) => {
    perStore.addOrderBy(column, direction);
    if (column === `${alias}.id`) return `page.page_id ${direction}`;
    perStore.addSelect(column, `page_key_${i}`);
    return `page.page_key_${i} ${direction}`;
  });
  const [perStoreSql, parameters] = perStore.getQueryAndParameters();
  const sql = acrossStoresSql({
    select: 'page.page_id',
    perStore: perStoreSql,
    alias: 'page',
    userIdParameter: `$${parameters.length + 1}`,
    order: outerKeys.join(', '),
    query,
  });
  const [rows, total] = await Promise.all([
    builder.connection.query(sql, [...parameters, userId]) as Promise<
      { page_id: number }[]
    >,
    builder.getCount(),
  ]);
  if (rows.length === 0) return { records: [], total };
  const ids = rows.map((row) => row.page_id);
  const records = await builder
    .clone()
    .andWhere(`${alias}.id IN (:...pageIds)`, { pageIds: ids })
    .orderBy()
    .getMany();
  const position = new Map(ids.map((id, i) => [String(id), i]));
  records.sort(
    (a, b) => position.get(String(a.id))! - position.get(String(b.id))!,
  );
  return { records, total };
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
