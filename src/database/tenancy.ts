import { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery, Page, PageCursor } from '../common/list-query';
import type { Principal } from '../common/principal';
import {
  listPage,
  orderBySql,
  orderKeys,
  OrderKeys,
  pageBounds,
} from './list-page';

/**
 * The tenancy rule, in one place: a store-owned row (one with `store_id` and
 * `test_mode`, or reachable from one) exists for a caller only when its
 * store is one of the caller's and its mode is the caller's. Every
 * repository read and write of such a row goes through this module (the
 * test `tenancy.spec.ts` checks that each repository method touching a
 * store-owned table calls it, or is a reviewed exception).
 *
 * A tenancy is either an API key's (`Principal`: the user's stores) or one
 * store's (the hosted checkout and a purchase, which know their store from a
 * trusted source), always in one mode; both may be given (one store of the
 * user's).
 */
export type Tenancy =
  | { testMode: boolean; userId: number; storeId?: number }
  | { testMode: boolean; userId?: undefined; storeId: number };

/** The ids of user `userId`'s stores, as a subquery (the `stores.user_id` index). */
function ownedStoresSql(userId: string): string {
  return `SELECT tenant_store.id FROM stores tenant_store WHERE tenant_store.user_id = ${userId}`;
}

function assertTenancy(tenancy: Tenancy): void {
  if (tenancy.userId === undefined && tenancy.storeId === undefined)
    throw new Error('A tenancy names a user or a store');
}

/**
 * Restricts `alias` (a store-owned table) of a query builder to the
 * tenancy. Conditions are ANDed, so call it in any order with the others.
 */
export function scoped<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  tenancy: Tenancy,
): SelectQueryBuilder<T> {
  assertTenancy(tenancy);
  builder.andWhere(`${alias}.test_mode = :tenancyTestMode`, {
    tenancyTestMode: tenancy.testMode,
  });
  if (tenancy.userId !== undefined)
    builder.andWhere(
      `${alias}.store_id IN (${ownedStoresSql(':tenancyUserId')})`,
      {
        tenancyUserId: tenancy.userId,
      },
    );
  if (tenancy.storeId !== undefined)
    builder.andWhere(`${alias}.store_id = :tenancyStoreId`, {
      tenancyStoreId: tenancy.storeId,
    });
  return builder;
}

/** Restricts `alias` of a query over `stores` itself to the user's stores (stores are visible in both modes). */
export function ownStores<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  owner: Pick<Principal, 'userId'>,
): SelectQueryBuilder<T> {
  return builder.andWhere(`${alias}.user_id = :tenancyUserId`, {
    tenancyUserId: owner.userId,
  });
}

/**
 * For hand-written SQL over per-store rows that hold both modes (the order
 * counters): the condition restricting `column` (a store id) to the user's
 * stores; appends the user's id to `params`.
 */
export function inOwnedStores(
  column: string,
  owner: Pick<Principal, 'userId'>,
  params: unknown[],
): string {
  return `${column} IN (${ownedStoresSql(`$${params.push(owner.userId)}`)})`;
}

/**
 * For one statement that serves several callers at once, one row of
 * `callers` per caller (e.g. concurrent single writes folded into one
 * round trip): appends each caller's user and mode as two arrays to
 * `params`, and answers the table expression `callers` (to join with each
 * caller's other values by `ord`, its 1-based position in `principals`) and
 * the condition restricting `alias` (a store-owned table) to the tenancy of
 * the row `callers` names.
 */
export function callerScopes(
  principals: Principal[],
  params: unknown[],
): { callers: string; on(alias: string): string } {
  const users = `$${params.push(principals.map((p) => p.userId))}`;
  const modes = `$${params.push(principals.map((p) => p.testMode))}`;
  return {
    callers: `unnest(${users}::integer[], ${modes}::boolean[]) WITH ORDINALITY AS callers(user_id, test_mode, ord)`,
    on: (alias) =>
      `${alias}.test_mode = callers.test_mode AND ${alias}.store_id IN (${ownedStoresSql('callers.user_id')})`,
  };
}

/** Whether the user owns the store (stores are visible in both modes). */
export async function ownsStore(
  runner: Pick<EntityManager, 'query'>,
  owner: Pick<Principal, 'userId'>,
  storeId: number,
): Promise<boolean> {
  const rows: unknown[] = await runner.query(
    'SELECT 1 FROM stores WHERE id = $1 AND user_id = $2',
    [storeId, owner.userId],
  );
  return rows.length > 0;
}

/**
 * The tenancy of hand-written SQL (`poolQuery`, `EntityRows`, transaction
 * queries). `sqlScope` appends the tenancy's values to `params` (the user,
 * the mode, the store, those given, in that order) and remembers their
 * placeholders; `on(alias)` is then the condition on a store-owned table,
 * and `page(…)` a list page over one. Build the statement's other
 * placeholders from `params.length` so they follow.
 */
export class SqlScope {
  private readonly userId?: string;
  private readonly testMode: string;
  private readonly storeId?: string;

  constructor(
    tenancy: Tenancy,
    private readonly params: unknown[],
  ) {
    assertTenancy(tenancy);
    const next = (value: unknown) => `$${params.push(value)}`;
    if (tenancy.userId !== undefined) this.userId = next(tenancy.userId);
    this.testMode = next(tenancy.testMode);
    if (tenancy.storeId !== undefined) this.storeId = next(tenancy.storeId);
  }

  /** The condition restricting `alias` (a store-owned table) to the tenancy. */
  on(alias: string): string {
    return [
      `${alias}.test_mode = ${this.testMode}`,
      ...this.storeConditions(`${alias}.store_id`),
    ].join(' AND ');
  }

  private storeConditions(column: string): string[] {
    const conditions: string[] = [];
    if (this.userId !== undefined)
      conditions.push(`${column} IN (${ownedStoresSql(this.userId)})`);
    if (this.storeId !== undefined)
      conditions.push(`${column} = ${this.storeId}`);
    return conditions;
  }

  /**
   * One page of `table` in the tenancy. `filters` are the conditions on
   * `alias` besides the tenancy. Across all of a user's stores the page's
   * ids come from the per-store merge (see `mergedPageIdsSql`); in one
   * store, a page past the first is a deferred join: its ids are found by
   * an index-only scan of the sort key, then only those rows are read.
   *
   * A cursor page (`query.page.cursor`) is a keyset seek instead of an
   * offset: the rows past the cursor's record in the list's order (before
   * it: in reverse order, which the caller turns back), one more than the
   * page so the caller knows whether another follows (`cursorPage`).
   *
   * A page `from` a record known to stand `skip` records before it
   * (`PagePositions`) seeks from that record while `from.guard` holds.
   */
  page(options: {
    select: string;
    table: string;
    alias: string;
    filters: string[];
    sortColumns: Record<string, string>;
    query: ListQuery;
    from?: { id: number; skip: number; guard: string };
  }): string {
    const { select, table, alias, sortColumns, query, from } = options;
    const cursor = query.page.cursor;
    const keys = travelKeys(orderKeys(alias, sortColumns, query), cursor);
    const order = orderBySql(keys);
    const offset = from ? from.skip : pageBounds(query).offset;
    const size = cursor ? pageBounds(query).size + 1 : pageBounds(query).size;
    const filters = [...options.filters];
    if (cursor && cursor.id !== null)
      filters.push(this.keyset(table, alias, keys, cursor.id, false));
    if (from)
      filters.push(this.keyset(table, alias, keys, from.id, true), from.guard);
    const also = filters.map((filter) => ` AND ${filter}`).join('');
    if (this.userId === undefined || !acrossStores(query)) {
      const where = acrossStores(query)
        ? this.on(alias)
        : this.inStore(alias, query.filters.store_id);
      if (offset === 0)
        return `SELECT ${select} FROM ${table} ${alias}
     WHERE ${where}${also}
     ORDER BY ${order} LIMIT ${size}`;
      return `SELECT ${select} FROM ${table} ${alias}
    JOIN (SELECT ${alias}.id AS page_id FROM ${table} ${alias}
           WHERE ${where}${also}
           ORDER BY ${order} LIMIT ${size} OFFSET ${offset}) page_ids
      ON page_ids.page_id = ${alias}.id
   ORDER BY ${order}`;
    }
    const columns = [
      `${alias}.id AS page_id`,
      ...keys
        .map(({ column }, i) => `${column} AS page_key_${i}`)
        .filter((_, i) => keys[i].column !== `${alias}.id`),
    ];
    const perStoreWhere = [
      `${alias}.store_id = page_store.id`,
      `${alias}.test_mode = ${this.testMode}`,
      ...(this.storeId !== undefined
        ? [`${alias}.store_id = ${this.storeId}`]
        : []),
    ].join(' AND ');
    const pageIds = mergedPageIdsSql({
      perStore: `SELECT ${columns.join(', ')} FROM ${table} ${alias}
       WHERE ${perStoreWhere}${also}
       ORDER BY ${order} LIMIT ${offset + size}`,
      keys,
      alias,
      userIdParameter: this.userId,
      size,
      offset,
    });
    return `SELECT ${select} FROM ${table} ${alias}
    JOIN (${pageIds}) page_ids ON page_ids.page_id = ${alias}.id
   ORDER BY ${order}`;
  }

  /**
   * The tenancy of a list filtered to one store (`filter[store_id]`, also
   * among the caller's `filters`): the caller's ownership of that store is
   * one uncorrelated check, evaluated once, rather than a semi-join with
   * the user's stores on every row scanned (which a deep page pays 50,000
   * times).
   */
  private inStore(alias: string, storeId: unknown): string {
    if (this.userId === undefined) return this.on(alias);
    const store = `$${this.params.push(storeId)}`;
    return [
      `${alias}.test_mode = ${this.testMode}`,
      `${alias}.store_id = ${store}`,
      `EXISTS (SELECT 1 FROM stores tenant_store WHERE tenant_store.id = ${store} AND tenant_store.user_id = ${this.userId})`,
      ...(this.storeId !== undefined
        ? [`${alias}.store_id = ${this.storeId}`]
        : []),
    ].join(' AND ');
  }

  /**
   * The rows past record `id` (and that record too when `inclusive`) in the
   * order of `keys` (all one way, the parser sees to it): the sort key
   * compared as one row with the record's, read by its id in the same
   * tenancy (an id naming a record the caller cannot see matches nothing).
   */
  private keyset(
    table: string,
    alias: string,
    keys: OrderKeys,
    id: number,
    inclusive: boolean,
  ): string {
    const placeholder = `$${this.params.push(id)}`;
    const columns = keys.map(({ column }) => column);
    const theirs = columns.map((column) =>
      column.replace(new RegExp(`^${alias}\\.`), 'page_cursor.'),
    );
    const op = `${keys[0].direction === 'DESC' ? '<' : '>'}${inclusive ? '=' : ''}`;
    return `(${columns.join(', ')}) ${op} (SELECT ${theirs.join(', ')}
      FROM ${table} page_cursor
     WHERE page_cursor.id = ${placeholder} AND ${this.on('page_cursor')})`;
  }
}

/** A cursor page before its record reads the list backwards. */
function travelKeys(
  keys: OrderKeys,
  cursor: PageCursor | undefined,
): OrderKeys {
  if (cursor?.direction !== 'before') return keys;
  return keys.map(({ column, direction }) => ({
    column,
    direction: direction === 'ASC' ? 'DESC' : 'ASC',
  }));
}

/**
 * A cursor page's records in the list's order and whether more follow, from
 * the rows `SqlScope.page` read (one more than the page, backwards for
 * `before`). Other pages pass through.
 */
export function cursorPage<T>(
  rows: T[],
  query: ListQuery,
): { records: T[]; more?: boolean } {
  const cursor = query.page.cursor;
  if (!cursor) return { records: rows };
  const more = rows.length > query.page.size;
  const records = rows.slice(0, query.page.size);
  if (cursor.direction === 'before') records.reverse();
  return { records, more };
}

/** See `SqlScope`. */
export function sqlScope(tenancy: Tenancy, params: unknown[]): SqlScope {
  return new SqlScope(tenancy, params);
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
  keys: OrderKeys;
  alias: string;
  userIdParameter: string;
  size: number;
  offset: number;
}): string {
  const { perStore, keys, alias, userIdParameter, size, offset } = options;
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
 * A list page of `alias` (a store-owned table) in the tenancy: scopes
 * `builder` (which carries the filters) and pages it. Across all of a user's
 * stores the page's ids come from the per-store merge (see
 * `mergedPageIdsSql`), then the builder loads those records; the total is
 * the builder's count. For lists read outside any transaction (the ids are
 * read through the data source's pool).
 */
export async function scopedListPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  sortColumns: Record<string, string>,
  query: ListQuery,
  tenancy: Tenancy,
): Promise<Page<T>> {
  scoped(builder, alias, tenancy);
  if (tenancy.userId === undefined || !acrossStores(query))
    return listPage(builder, alias, sortColumns, query);
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
    size,
    offset,
  });
  const [rows, total] = await Promise.all([
    builder.connection.query(sql, [...parameters, tenancy.userId]) as Promise<
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
