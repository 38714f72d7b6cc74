import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { OrderItem } from './order-item.entity';
import { OrderItemRepository } from './order-item.repository';
import { OrderRepository, OrderView } from './order.repository';

/** How `orders` are found (registered in OrderModule). */
@Injectable()
export class OrderReader implements Reader<OrderView> {
  constructor(private readonly orders: OrderRepository) {}

  async findOne(principal: Principal, id: number): Promise<OrderView | null> {
    const [order] = await this.orders.findVisible(principal, [id]);
    return order ?? null;
  }

  findMany(principal: Principal, ids: number[]): Promise<OrderView[]> {
    return this.orders.findVisible(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<OrderView>> {
    return this.orders.findPage(principal, query);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<OrderView[]> {
    if (filter !== 'store_id' && filter !== 'customer_id')
      throw new Error(`orders cannot be listed by ${filter}`);
    return this.orders.findBy(principal, filter, values);
  }
}

/** How `order-items` are found (registered in OrderModule). */
@Injectable()
export class OrderItemReader implements Reader<OrderItem> {
  constructor(private readonly items: OrderItemRepository) {}

  findMany(principal: Principal, ids: number[]): Promise<OrderItem[]> {
    return this.items.findVisible(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<OrderItem>> {
    return this.items.findPage(principal, query);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<OrderItem[]> {
    if (
      filter !== 'order_id' &&
      filter !== 'product_id' &&
      filter !== 'variant_id'
    )
      throw new Error(`order-items cannot be listed by ${filter}`);
    return this.items.findBy(principal, filter, values);
  }
}
