import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers, FilterValue } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { OrderRenderer } from './order.renderer';
import { OrderView } from './order.repository';
import { OrderService } from './order.service';

/** JSON:API `orders`. */
@Injectable()
export class OrderSerializer
  extends IntegerIdFinders<OrderView>
  implements ResourceType<OrderView>, OnModuleInit
{
  readonly type: string;
  readonly relationships: OrderRenderer['relationships'];
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      user_email: filterParsers.email,
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
    super(orders);
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

  override findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ) {
    if (filter !== 'store_id' && filter !== 'customer_id')
      throw new Error(`orders cannot be listed by ${filter}`);
    return this.orders.findByFilter(principal, filter, values);
  }
}
