import { DataSource } from 'typeorm';
import { FilterValue, ListQuery } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { EntityRows } from '../../database/entity-rows';
import { pageBounds } from '../../database/list-page';
import { PagePositions } from '../../database/page-positions';
import { poolQuery } from '../../database/pool-query';
import { inOwnedStores, sqlScope } from '../../database/tenancy';
import { Order } from './order.entity';

const ORDER_SORTS: Record<string, string> = {
  created_at: 'o.created_at',
  updated_at: 'o.updated_at',
  order_number: 'o.order_number',
  total: 'o.total',
};

/** The list's equality filters, each on its same-named column. */
const ORDER_FILTERS = [
  'store_id',
  'user_email',
  'order_number',
  'customer_id',
] as const;

/**
 * The SQL of the orders list (`GET /v1/orders`): a page's rows and
 * `meta.page.total`, with deep pages of one store read from where earlier
 * pages found their orders (`PagePositions`).
 */
export class OrderList {
  /** Where deep pages of one store's orders start (`positionedPage`). */
  private readonly positions = new PagePositions();

  constructor(
    private readonly orderRows: EntityRows<Order>,
    private readonly connection: DataSource,
  ) {}

  /** The page's orders (with the cursor's extra row) and the total. */
  page(principal: Principal, query: ListQuery): Promise<[Order[], number]> {
    const list = positionedList(principal, query);
    if (list) return this.positionedPage(principal, query, list);
    return Promise.all([
      this.orderRows.query(...this.pageStatement(principal, query)),
      this.total(principal, query),
    ]);
  }

  /**
   * A deep page of one store's orders: a keyset seek from the nearest order
   * whose position is known at the store's current order count, or else
   * by offset, learning where this page's orders stand. The count is read
   * before the offset page, so a position learnt is never newer than its
   * version (orders are only ever added, each adding one to the count, so
   * an unchanged count means an unchanged list).
   */
  private async positionedPage(
    principal: Principal,
    query: ListQuery,
    list: string,
  ): Promise<[Order[], number]> {
    const { offset } = pageBounds(query);
    const known = this.positions.nearest(list, offset);
    if (known) {
      const [orders, count] = await Promise.all([
        this.orderRows.query(
          ...this.pageStatement(principal, query, (params) => ({
            id: known.id,
            skip: offset - known.position,
            guard: `${this.storeCount(principal, query, params)} = $${params.push(known.version)}`,
          })),
        ),
        this.total(principal, query),
      ]);
      if (orders.length > 0) {
        this.positions.learn(list, known.version, offset, ids(orders));
        return [orders, count];
      }
      this.positions.forget(list);
    }
    const count = await this.total(principal, query);
    const orders = await this.orderRows.query(
      ...this.pageStatement(principal, query),
    );
    this.positions.learn(list, count, offset, ids(orders));
    return [orders, count];
  }

  /** The page's statement and its values (see `SqlScope.page`). */
  private pageStatement(
    principal: Principal,
    query: ListQuery,
    from?: (params: unknown[]) => { id: number; skip: number; guard: string },
  ): [string, unknown[]] {
    const params: unknown[] = [];
    const scope = sqlScope(principal, params);
    const filters = orderFilters(query, params);
    const sql = scope.page({
      select: this.orderRows.select,
      table: 'orders',
      alias: 'o',
      filters,
      sortColumns: ORDER_SORTS,
      query,
      from: from?.(params),
    });
    return [sql, params];
  }

  /** `meta.page.total`: the kept count when only the store is filtered. */
  private total(principal: Principal, query: ListQuery): Promise<number> {
    const onlyStoreFilter = Object.keys(query.filters).every(
      (filter) => filter === 'store_id',
    );
    if (onlyStoreFilter)
      return this.countVisible(principal, query.filters.store_id);
    const params: unknown[] = [];
    const scope = sqlScope(principal, params);
    const filters = orderFilters(query, params);
    return poolQuery<{ total: number }>(
      this.connection,
      `SELECT count(*)::int AS total FROM orders o
        WHERE ${[scope.on('o'), ...filters].join(' AND ')}`,
      params,
    ).then((rows) => rows[0].total);
  }

  /** The filtered store's kept order count in the caller's mode, as SQL. */
  private storeCount(
    principal: Principal,
    query: ListQuery,
    params: unknown[],
  ): string {
    const column = principal.testMode ? 'test_order_count' : 'live_order_count';
    const owned = inOwnedStores('c.store_id', principal, params);
    return `(SELECT c.${column} FROM store_order_counters c
              WHERE ${owned} AND c.store_id = $${params.push(query.filters.store_id)})`;
  }

  /**
   * The number of visible orders, optionally in one store, from the counts
   * kept next to each store's order numbers: constant time where count(*)
   * would grow with the store.
   */
  private async countVisible(
    principal: Principal,
    storeId: FilterValue | undefined,
  ): Promise<number> {
    const column = principal.testMode ? 'test_order_count' : 'live_order_count';
    const inStore = storeId !== undefined;
    const params: unknown[] = [];
    const owned = inOwnedStores('c.store_id', principal, params);
    if (inStore) params.push(storeId);
    const rows = await poolQuery<{ total: string }>(
      this.connection,
      `SELECT coalesce(sum(c.${column}), 0) AS total
         FROM store_order_counters c
        WHERE ${owned}${inStore ? ` AND c.store_id = $${params.length}` : ''}`,
      params,
      `orders.count-${column}${inStore ? '-in-store' : ''}`,
    );
    return Number(rows[0].total);
  }
}

/** The conditions of the list's filters, their values appended to `params`. */
function orderFilters(query: ListQuery, params: unknown[]): string[] {
  const filters: string[] = [];
  for (const filter of ORDER_FILTERS) {
    const value = query.filters[filter];
    if (value === undefined) continue;
    params.push(value);
    // The whole address in any case, as a purchase finds its customer.
    filters.push(
      filter === 'user_email'
        ? `lower(o.user_email) = lower($${params.length})`
        : `o.${filter} = $${params.length}`,
    );
  }
  return filters;
}

/** Sorts whose columns never change once an order is committed. */
const FIXED_SORTS = new Set(['created_at', 'order_number']);
/** Offsets below this are cheap enough to count off every time. */
const POSITIONED_FROM = 1_000;

/**
 * The name under which a deep numbered page of one store's orders keeps
 * where its orders stand (`PagePositions`), or undefined for any other page:
 * positions hold only while the list changes by insertion alone, which the
 * store's kept order count (the version) follows: one store, no other
 * filter, sorted by columns that never change, all one way (a keyset).
 */
function positionedList(
  principal: Principal,
  query: ListQuery,
): string | undefined {
  const storeId = query.filters.store_id;
  const filters = Object.keys(query.filters);
  const directions = new Set(query.sort.map((key) => key.descending));
  if (
    storeId === undefined ||
    filters.length !== 1 ||
    query.page.cursor ||
    pageBounds(query).offset < POSITIONED_FROM ||
    !query.sort.every((key) => FIXED_SORTS.has(key.field)) ||
    directions.size > 1
  )
    return undefined;
  return [principal.userId, principal.testMode, storeId, query.sortParam].join(
    ':',
  );
}

function ids(orders: Order[]): number[] {
  return orders.map((order) => order.id);
}
