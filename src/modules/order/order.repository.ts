import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Not, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { EntityRows } from '../../database/entity-rows';
import { commitWith, matchIds } from '../../database/pool-query';
import { scoped, cursorPage, sqlScope } from '../../database/tenancy';
import type { OutboxWrite } from '../webhooks/outbox';
import { OrderItem } from './order-item.entity';
import { OrderList } from './order-list.repository';
import { Order } from './order.entity';

export type OrderView = Order & { firstItem: OrderItem | null };

/** What settling a pending order records: its payment, or why it failed. */
export type OrderSettlement =
  | { status: 'paid'; paymentReference: string; updatedAt: Date }
  | { status: 'failed'; failureReason: string; updatedAt: Date };

/**
 * Every query for orders and order numbers, and the order items an order's
 * changes read (the `order-items` lists are OrderItemRepository's). The
 * API's reads of orders are hand-written SQL (EntityRows): they are its
 * hottest lists.
 */
@Injectable()
export class OrderRepository {
  private readonly orderRows: EntityRows<Order>;
  private readonly itemRows: EntityRows<OrderItem>;
  private readonly list: OrderList;

  constructor(
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    @InjectRepository(OrderItem) private readonly items: Repository<OrderItem>,
  ) {
    this.orderRows = new EntityRows(orders, 'o');
    this.itemRows = new EntityRows(items, 'item');
    this.list = new OrderList(this.orderRows, orders.manager.connection);
  }

  /**
   * Numbers an order with its store's next order number and counts it in
   * its mode's total, in one statement sent with the transaction's COMMIT
   * (`commitWith`: nothing may be written after it). The counter row is
   * locked from the statement to the end of the commit, so concurrent
   * purchases queue here and get consecutive numbers; a failed commit
   * returns the number (and the count), leaving no gap.
   */
  async assignOrderNumberAndCommit(
    manager: EntityManager,
    order: Pick<Order, 'id' | 'storeId' | 'testMode'>,
  ): Promise<number> {
    const numbering = this.numbering(order);
    const rows = await commitWith<{ order_number: number }>(
      manager,
      `WITH ${numbering.ctes} SELECT order_number FROM numbered`,
      numbering.parameters,
    );
    return rows[0].order_number;
  }

  /**
   * `assignOrderNumber` as CTEs, for a statement that also records the
   * event carrying the number (`Outbox.recordWith`): `numbered` returns the
   * order's `order_number`.
   */
  numbering(order: Pick<Order, 'id' | 'storeId' | 'testMode'>): OutboxWrite {
    return {
      ctes: `counter AS (
         INSERT INTO store_order_counters AS c
           (store_id, last_order_number, test_order_count, live_order_count)
         VALUES ($1, 1, $2, $3)
         ON CONFLICT (store_id) DO UPDATE SET
           last_order_number = c.last_order_number + 1,
           test_order_count = c.test_order_count + $2,
           live_order_count = c.live_order_count + $3
         RETURNING c.last_order_number),
       numbered AS (
         UPDATE orders o SET order_number = counter.last_order_number
           FROM counter WHERE o.id = $4
         RETURNING o.order_number)`,
      parameters: [
        order.storeId,
        order.testMode ? 1 : 0,
        order.testMode ? 0 : 1,
        order.id,
      ],
      from: 'numbered',
      column: 'order_number',
    };
  }

  async insertOrder(
    manager: EntityManager,
    fields: Partial<Order>,
  ): Promise<Order> {
    const [order] = await this.orderRows.insert(manager, [fields]);
    return order;
  }

  /** The order's items in one statement, in the given order. */
  insertItems(
    manager: EntityManager,
    rows: Partial<OrderItem>[],
  ): Promise<OrderItem[]> {
    return this.itemRows.insert(manager, rows);
  }

  saveOrder(manager: EntityManager, order: Order): Promise<Order> {
    return manager.getRepository(Order).save(order);
  }

  /**
   * A pending order paid or failed, in one statement that also locks it and
   * returns it as stored; null when it is no longer pending (settled by
   * another caller: the row lock makes a racing caller wait for that commit
   * and then find it settled).
   */
  async settlePending(
    manager: EntityManager,
    id: number,
    changes: OrderSettlement,
  ): Promise<Order | null> {
    // A paid order records its payment, a failed one the reason.
    const [column, value] =
      changes.status === 'paid'
        ? ['payment_reference', changes.paymentReference]
        : ['failure_reason', changes.failureReason];
    const [order] = await this.orderRows.query(
      `UPDATE orders o
          SET status = '${changes.status}', ${column} = $2, updated_at = $3
        WHERE o.id = $1 AND o.status = 'pending'
        RETURNING ${this.orderRows.select}`,
      [id, value, changes.updatedAt],
      `orders.settle-${changes.status}`,
      manager,
    );
    return order ?? null;
  }

  private visible(principal: Principal, manager?: EntityManager) {
    return scoped(
      (manager ? manager.getRepository(Order) : this.orders).createQueryBuilder(
        'o',
      ),
      'o',
      principal,
    );
  }

  findById(id: number): Promise<Order | null> {
    return this.orders.findOneBy({ id });
  }

  /** An order by id alone, locked FOR UPDATE (payment settlements). */
  lock(manager: EntityManager, id: number): Promise<Order | null> {
    return manager
      .getRepository(Order)
      .createQueryBuilder('o')
      .where('o.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  /**
   * The store's order (in the mode) whose payment is `paymentReference`
   * (a processor's event about that payment).
   */
  findByPaymentReference(
    tenancy: { storeId: number; testMode: boolean },
    paymentReference: string,
  ): Promise<Order | null> {
    return scoped(this.orders.createQueryBuilder('o'), 'o', tenancy)
      .andWhere('o.payment_reference = :paymentReference', {
        paymentReference,
      })
      .getOne();
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
    const params: unknown[] = [];
    const scope = sqlScope(principal, params);
    const id = matchIds('o.id', ids, params.length + 1);
    params.push(id.value);
    const orders = await this.orderRows.query(
      `SELECT ${this.orderRows.select} FROM orders o
        WHERE ${scope.on('o')} AND ${id.sql}`,
      params,
      `orders.visible-${id.shape}`,
    );
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
    const [orders, count] = await this.list.page(principal, query);
    const { records, more } = cursorPage(orders, query);
    return {
      records: await this.withFirstItems(records),
      total: count,
      ...(more === undefined ? {} : { more }),
    };
  }

  async findBy(
    principal: Principal,
    filter: 'store_id' | 'customer_id',
    values: FilterValue[],
  ): Promise<OrderView[]> {
    const params: unknown[] = [];
    const scope = sqlScope(principal, params);
    params.push(values);
    const orders = await this.orderRows.query(
      `SELECT ${this.orderRows.select} FROM orders o
        WHERE ${scope.on('o')} AND o.${filter} = ANY ($${params.length}::integer[])
        ORDER BY o.created_at DESC, o.id DESC`,
      params,
      `orders.visible-by-${filter}`,
    );
    return this.withFirstItems(orders);
  }

  private async withFirstItems(orders: Order[]): Promise<OrderView[]> {
    if (orders.length === 0) return [];
    const order = matchIds(
      'item.order_id',
      orders.map((o) => o.id),
      1,
    );
    const items = await this.itemRows.query(
      `SELECT DISTINCT ON (item.order_id) ${this.itemRows.select}
         FROM order_items item WHERE ${order.sql}
        ORDER BY item.order_id, item.id`,
      [order.value],
      `orders.first-items-${order.shape}`,
    );
    const byOrder = new Map(items.map((item) => [item.orderId, item]));
    return orders.map((order) =>
      Object.assign(order, { firstItem: byOrder.get(order.id) ?? null }),
    );
  }

  /** An order's items; outside a transaction without a manager. */
  itemsOf(
    manager: EntityManager | undefined,
    orderId: number,
  ): Promise<OrderItem[]> {
    return (manager ? manager.getRepository(OrderItem) : this.items).find({
      where: { orderId },
      order: { id: 'ASC' },
    });
  }

  /** A customer's orders, newest first; failed payment attempts left out. */
  async ofCustomer(customerId: number, limit: number): Promise<OrderView[]> {
    const orders = await this.orders.find({
      where: { customerId, status: Not('failed') },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
    return this.withFirstItems(orders);
  }
}
