import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery, Page } from '../common/list-query';

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
  const { size, offset } = pageBounds(query);
  return builder.offset(offset).limit(size);
}

/** A page's size and offset; integers from the parser, so safe to inline. */
function pageBounds(query: ListQuery) {
  const size = Math.trunc(query.page.size);
  return { size, offset: (Math.trunc(query.page.number) - 1) * size };
}

function orderBySql(keys: ReturnType<typeof orderKeys>): string {
  return keys
    .map(({ column, direction }) => `${column} ${direction}`)
    .join(', ');
}

/**
 * A list filtered to one store reads that store's index directly; only a
 * list over all of the user's stores needs the per-store merge.
 */
function acrossStores(query: ListQuery): boolean {
  return query.filters.store_id === undefined;
}

/**
 * The ids of a page merged from per-store pages. `perStore` is a query over
 * the store `page_store.id` that selects `page_id` (the id) and `page_key_<i>`
 * (the i-th sort key, unless it is the id), ordered and limited to
 * offset + size rows.
 *
 * `store_id IN (the user's stores) ORDER BY …` makes PostgreSQL read and sort
 * every row of those stores before it can return the first page: the
 * `(store_id, test_mode, <sort>)` indexes keep rows in order within one store
 * only (about 200 ms at a million orders, growing with them). Here each store
 * gives its first offset + size rows, read in index order (only the keys),
 * and only those are merged and paged.
 */
function mergedPageIdsSql(options: {
  perStore: string;
  keys: ReturnType<typeof orderKeys>;
  alias: string;
  userIdParameter: string;
  query: ListQuery;
}): string {
  const { perStore, keys, alias, userIdParameter, query } = options;
  const { size, offset } = pageBounds(query);
  const order = keys
    .map(({ column, direction }, i) =>
      column === `${alias}.id`
        ? `page.page_id ${direction}`
        : `page.page_key_${i} ${direction}`,
    )
    .join(', ');
  return `SELECT page.page_id
    FROM stores page_store
    CROSS JOIN LATERAL (${perStore}) page
   WHERE page_store.user_id = ${userIdParameter}
   ORDER BY ${order} LIMIT ${size} OFFSET ${offset}`;
}

/**
 * One page of `table` in a user's stores, for hand-written SQL. `where` is
 * the condition on `alias` besides the store (mode, filters); the user's id
 * is the parameter `userIdParameter` (e.g. `$1`). Across all the stores the
 * page's ids come from the per-store merge (see `mergedPageIdsSql`).
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
  const keys = orderKeys(alias, sortColumns, query);
  const order = orderBySql(keys);
  const { size, offset } = pageBounds(query);
  if (!acrossStores(query))
    return `SELECT ${select} FROM ${table} ${alias}
     WHERE ${alias}.store_id IN (SELECT id FROM stores WHERE user_id = ${userIdParameter})
       AND ${where}
     ORDER BY ${order} LIMIT ${size} OFFSET ${offset}`;
  const columns = [
    `${alias}.id AS page_id`,
    ...keys
      .map(({ column }, i) => `${column} AS page_key_${i}`)
      .filter((_, i) => keys[i].column !== `${alias}.id`),
  ];
  const pageIds = mergedPageIdsSql({
    perStore: `SELECT ${columns.join(', ')} FROM ${table} ${alias}
       WHERE ${alias}.store_id = page_store.id AND ${where}
       ORDER BY ${order} LIMIT ${offset + size}`,
    keys,
    alias,
    userIdParameter,
    query,
  });
  return `SELECT ${select} FROM ${table} ${alias}
    JOIN (${pageIds}) page_ids ON page_ids.page_id = ${alias}.id
   ORDER BY ${order}`;
}

/**
 * `listPage` for a builder over a table with store_id, scoped to the stores
 * of user `userId`. Across all the stores, the page's ids come from the
 * per-store merge (see `mergedPageIdsSql`), then the builder loads those
 * records; the total is the builder's count. For lists read outside any
 * transaction (the ids are read through the data source's pool).
 */
export async function storeScopedListPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
  userId: number,
): Promise<Page<T>> {
  if (!acrossStores(query)) return listPage(builder, alias, sortColumns, query);
  const keys = orderKeys(alias, sortColumns, query);
  const { size, offset } = pageBounds(query);
  const perStore = builder
    .clone()
    .select(`${alias}.id`, 'page_id')
    .andWhere(`${alias}.store_id = page_store.id`)
    .orderBy()
    .limit(offset + size);
  keys.forEach(({ column, direction }, i) => {
    perStore.addOrderBy(column, direction);
    // The id is selected once (TypeORM garbles a column selected twice).
    if (column !== `${alias}.id`) perStore.addSelect(column, `page_key_${i}`);
  });
  const [perStoreSql, parameters] = perStore.getQueryAndParameters();
  const sql = mergedPageIdsSql({
    perStore: perStoreSql,
    keys,
    alias,
    userIdParameter: `$${parameters.length + 1}`,
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
