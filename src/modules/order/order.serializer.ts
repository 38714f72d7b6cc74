import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import {
  FilterValue,
  filterParsers,
  ListQuery,
} from '../../http/json-api/list-query';
import {
  Page,
  parseIntegerId,
  ResourceType,
} from '../../http/json-api/resource';
import { OrderRenderer } from './order.renderer';
import { OrderView } from './order.repository';
import { OrderService } from './order.service';

const ids = (raw: string[]) =>
  raw.map(parseIntegerId).filter((id) => id !== null);

/** JSON:API `orders`. */
@Injectable()
export class OrderSerializer implements ResourceType<OrderView>, OnModuleInit {
  readonly type: string;
  readonly relationships: OrderRenderer['relationships'];
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      user_email: filterParsers.string,
      order_number: filterParsers.id,
      customer_id: filterParsers.id,
    },
    sorts: ['created_at', 'updated_at', 'order_number', 'total'],
    defaultSort: '-createdAt',
  };

  constructor(
    private readonly renderer: OrderRenderer,
    private readonly orders: OrderService,
    private readonly jsonApi: JsonApi,
  ) {
    this.type = renderer.type;
    this.relationships = renderer.relationships;
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(order: OrderView) {
    return this.renderer.id(order);
  }

  attributes(order: OrderView) {
    return this.renderer.attributes(order);
  }

  findOne(principal: Principal, id: string) {
    const orderId = parseIntegerId(id);
    return orderId === null
      ? Promise.resolve(null)
      : this.orders.findOne(principal, orderId);
  }

  findMany(principal: Principal, raw: string[]) {
    return this.orders.findMany(principal, ids(raw));
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<OrderView>> {
    return this.orders.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    if (filter !== 'store_id' && filter !== 'customer_id')
      throw new Error(`orders cannot be listed by ${filter}`);
    return this.orders.findByFilter(principal, filter, values);
  }
}
