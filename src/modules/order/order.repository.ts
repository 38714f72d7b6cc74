import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import { Principal } from '../../http/auth/principal';
import { FilterValue, ListQuery } from '../../http/json-api/list-query';
import { Page } from '../../http/json-api/resource';
import { OrderItem } from './order-item.entity';
import { SALE_STATUSES } from './order-status';
import { Order } from './order.entity';

const OWNED_STORES = 'SELECT s.id FROM stores s WHERE s.user_id = :userId';

const ORDER_SORTS: Record<string, string> = {
  created_at: 'o.created_at',
  updated_at: 'o.updated_at',
  order_number: 'o.order_number',
  total: 'o.total',
};

const ITEM_SORTS: Record<string, string> = {
  id: 'item.id',
  created_at: 'item.created_at',
};

export type OrderView = Order & { firstItem: OrderItem | null };

export interface SalesRow {
  storeId: number;
  totalSales: number;
  totalRevenue: number;
  thirtyDaySales: number;
  thirtyDayRevenue: number;
}

function page<T extends object>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  columns: Record<string, string>,
  query: ListQuery,
) {
  for (const key of query.sort) {
    builder.addOrderBy(columns[key.field], key.descending ? 'DESC' : 'ASC');
  }
  const last = query.sort[query.sort.length - 1];
  return builder
    .addOrderBy(`${alias}.id`, last?.descending ? 'DESC' : 'ASC')
    .offset((query.page.number - 1) * query.page.size)
    .limit(query.page.size);
}

/** Every query for orders, order items and order numbers. */
@Injectable()
export class OrderRepository {
  constructor(
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    @InjectRepository(OrderItem) private readonly items: Repository<OrderItem>,
  ) {}

  /**
   * The store's next order number. The upsert takes the counter row's lock
   * until the transaction ends, so concurrent purchases queue here and get
   * consecutive numbers; a rollback returns the number, leaving no gap.
   */
  async nextOrderNumber(
    manager: EntityManager,
    storeId: number,
  ): Promise<number> {
    const rows: { last_order_number: number }[] = await manager.query(
      `INSERT INTO store_order_counters AS c (store_id, last_order_number)
       VALUES ($1, 1)
       ON CONFLICT (store_id)
       DO UPDATE SET last_order_number = c.last_order_number + 1
       RETURNING c.last_order_number`,
      [storeId],
    );
    return rows[0].last_order_number;
  }

  /** Reserves `count` consecutive order numbers; returns the first. */
  async reserveOrderNumbers(
    manager: EntityManager,
    storeId: number,
    count: number,
  ): Promise<number> {
    const rows: { last_order_number: number }[] = await manager.query(
      `INSERT INTO store_order_counters AS c (store_id, last_order_number)
       VALUES ($1, $2)
       ON CONFLICT (store_id)
       DO UPDATE SET last_order_number = c.last_order_number + $2
       RETURNING c.last_order_number`,
      [storeId, count],
    );
    return rows[0].last_order_number - count + 1;
  }

  /** Multi-row INSERTs (below PostgreSQL's 65,535 bind parameters per statement). */
  async insertMany<T extends Order | OrderItem>(
    manager: EntityManager,
    target: typeof Order | typeof OrderItem,
    rows: Partial<T>[],
  ): Promise<number[]> {
    const ids: number[] = [];
    for (let start = 0; start < rows.length; start += 1000) {
      const result = await manager
        .createQueryBuilder()
        .insert()
        .into(target)
        .values(rows.slice(start, start + 1000))
        .returning('id')
        .updateEntity(false)
        .execute();
      for (const row of result.raw as { id: number }[]) ids.push(row.id);
    }
    return ids;
  }

  insertOrder(manager: EntityManager, fields: Partial<Order>): Promise<Order> {
    const repository = manager.getRepository(Order);
    return repository.save(repository.create(fields));
  }

  insertItem(
    manager: EntityManager,
    fields: Partial<OrderItem>,
  ): Promise<OrderItem> {
    const repository = manager.getRepository(OrderItem);
    return repository.save(repository.create(fields));
  }

  saveOrder(manager: EntityManager, order: Order): Promise<Order> {
    return manager.getRepository(Order).save(order);
  }

  private visible(principal: Principal, manager?: EntityManager) {
    return (manager ? manager.getRepository(Order) : this.orders)
      .createQueryBuilder('o')
      .where(`o.store_id IN (${OWNED_STORES})`, { userId: principal.userId })
      .andWhere('o.test_mode = :testMode', { testMode: principal.testMode });
  }

  /** The order locked FOR UPDATE, for refunds. */
  lockVisible(
    manager: EntityManager,
    principal: Principal,
    id: number,
  ): Promise<Order | null> {
    return this.visible(principal, manager)
      .andWhere('o.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async findVisible(principal: Principal, ids: number[]): Promise<OrderView[]> {
    if (ids.length === 0) return [];
    const orders = await this.visible(principal)
      .andWhere('o.id IN (:...ids)', { ids })
      .getMany();
    return this.withFirstItems(orders);
  }

  async findByIdentifier(identifier: string): Promise<OrderView | null> {
    const order = await this.orders.findOneBy({ identifier });
    if (!order) return null;
    const [view] = await this.withFirstItems([order]);
    return view;
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<OrderView>> {
    const builder = this.visible(principal);
    const { store_id, user_email, order_number, customer_id } = query.filters;
    if (store_id !== undefined)
      builder.andWhere('o.store_id = :storeId', { storeId: store_id });
    if (user_email !== undefined)
      builder.andWhere('o.user_email = :email', { email: user_email });
    if (order_number !== undefined)
      builder.andWhere('o.order_number = :number', { number: order_number });
    if (customer_id !== undefined)
      builder.andWhere('o.customer_id = :customerId', {
        customerId: customer_id,
      });
    const [orders, total] = await page(
      builder,
      'o',
      ORDER_SORTS,
      query,
    ).getManyAndCount();
    return { records: await this.withFirstItems(orders), total };
  }

  async findBy(
    principal: Principal,
    filter: 'store_id' | 'customer_id',
    values: FilterValue[],
  ): Promise<OrderView[]> {
    const orders = await this.visible(principal)
      .andWhere(`o.${filter} IN (:...values)`, { values })
      .orderBy('o.created_at', 'DESC')
      .addOrderBy('o.id', 'DESC')
      .getMany();
    return this.withFirstItems(orders);
  }

  private async withFirstItems(orders: Order[]): Promise<OrderView[]> {
    if (orders.length === 0) return [];
    const items = await this.items
      .createQueryBuilder('item')
      .distinctOn(['item.order_id'])
      .where('item.order_id IN (:...ids)', { ids: orders.map((o) => o.id) })
      .orderBy('item.order_id', 'ASC')
      .addOrderBy('item.id', 'ASC')
      .getMany();
    const byOrder = new Map(items.map((item) => [item.orderId, item]));
    return orders.map((order) =>
      Object.assign(order, { firstItem: byOrder.get(order.id) ?? null }),
    );
  }

  itemsOf(manager: EntityManager, orderId: number): Promise<OrderItem[]> {
    return manager
      .getRepository(OrderItem)
      .find({ where: { orderId }, order: { id: 'ASC' } });
  }

  private visibleItems(principal: Principal) {
    return this.items
      .createQueryBuilder('item')
      .where(`item.store_id IN (${OWNED_STORES})`, {
        userId: principal.userId,
      })
      .andWhere('item.test_mode = :testMode', {
        testMode: principal.testMode,
      });
  }

  findItems(principal: Principal, ids: number[]): Promise<OrderItem[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visibleItems(principal)
      .andWhere('item.id IN (:...ids)', { ids })
      .getMany();
  }

  async findItemPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<OrderItem>> {
    const builder = this.visibleItems(principal);
    for (const filter of ['order_id', 'product_id', 'variant_id'] as const) {
      if (query.filters[filter] !== undefined) {
        builder.andWhere(`item.${filter} = :${filter}`, {
          [filter]: query.filters[filter],
        });
      }
    }
    const [records, total] = await page(
      builder,
      'item',
      ITEM_SORTS,
      query,
    ).getManyAndCount();
    return { records, total };
  }

  findItemsBy(
    principal: Principal,
    filter: 'order_id' | 'product_id' | 'variant_id',
    values: FilterValue[],
  ): Promise<OrderItem[]> {
    return this.visibleItems(principal)
      .andWhere(`item.${filter} IN (:...values)`, { values })
      .orderBy('item.id', 'ASC')
      .getMany();
  }

  /** Sales figures in USD cents: paid orders (net of partial refunds), all time and the last 30 days. */
  async sales(
    storeIds: number[],
    testMode: boolean,
    since: Date,
  ): Promise<SalesRow[]> {
    if (storeIds.length === 0) return [];
    const rows: {
      store_id: number;
      total_sales: string;
      total_revenue: string;
      thirty_day_sales: string;
      thirty_day_revenue: string;
    }[] = await this.orders.query(
      `SELECT store_id,
              count(*) AS total_sales,
              coalesce(sum(total_usd - refunded_amount_usd), 0) AS total_revenue,
              count(*) FILTER (WHERE created_at >= $3) AS thirty_day_sales,
              coalesce(sum(total_usd - refunded_amount_usd) FILTER (WHERE created_at >= $3), 0) AS thirty_day_revenue
         FROM orders
        WHERE store_id = ANY($1) AND test_mode = $2 AND status = ANY($4)
        GROUP BY store_id`,
      [storeIds, testMode, since, SALE_STATUSES],
    );
    return rows.map((row) => ({
      storeId: row.store_id,
      totalSales: Number(row.total_sales),
      totalRevenue: Number(row.total_revenue),
      thirtyDaySales: Number(row.thirty_day_sales),
      thirtyDayRevenue: Number(row.thirty_day_revenue),
    }));
  }

  /** Net paid revenue in USD cents per customer. */
  async revenueByCustomer(customerIds: number[]): Promise<Map<number, number>> {
    if (customerIds.length === 0) return new Map();
    const rows: { customer_id: number; revenue: string }[] =
      await this.orders.query(
        `SELECT customer_id, coalesce(sum(total_usd - refunded_amount_usd), 0) AS revenue
           FROM orders
          WHERE customer_id = ANY($1) AND status = ANY($2)
          GROUP BY customer_id`,
        [customerIds, SALE_STATUSES],
      );
    return new Map(rows.map((r) => [r.customer_id, Number(r.revenue)]));
  }

  /** A customer's orders, newest first, for the customer portal. */
  async ofCustomer(customerId: number, limit: number): Promise<OrderView[]> {
    const orders = await this.orders.find({
      where: { customerId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
    return this.withFirstItems(orders);
  }
}
