import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers, FilterValue } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { OrderItem } from './order-item.entity';
import { orderItemAttributes } from './order.renderer';
import { OrderService } from './order.service';

/** JSON:API `order-items`: 11 attributes. */
@Injectable()
export class OrderItemSerializer
  extends IntegerIdFinders<OrderItem>
  implements ResourceType<OrderItem>, OnModuleInit
{
  readonly type = 'order-items';
  readonly relationships = {
    order: { kind: 'one', type: 'orders', id: (i: OrderItem) => i.orderId },
    product: {
      kind: 'one',
      type: 'products',
      id: (i: OrderItem) => i.productId,
    },
    variant: {
      kind: 'one',
      type: 'variants',
      id: (i: OrderItem) => i.variantId,
    },
  } as const;
  readonly list = {
    filters: {
      order_id: filterParsers.id,
      product_id: filterParsers.id,
      variant_id: filterParsers.id,
    },
    sorts: ['id', 'created_at'],
    defaultSort: 'id',
  };

  constructor(
    private readonly orders: OrderService,
    private readonly jsonApi: JsonApi,
  ) {
    // OrderService serves two resource types; these are its finders for this one.
    super({
      findMany: (principal, ids) => orders.findItem(principal, ids),
      findPage: (principal, query) => orders.findItemPage(principal, query),
    });
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(item: OrderItem) {
    return String(item.id);
  }

  attributes(item: OrderItem) {
    return orderItemAttributes(item);
  }

  override findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ) {
    if (
      filter !== 'order_id' &&
      filter !== 'product_id' &&
      filter !== 'variant_id'
    )
      throw new Error(`order-items cannot be listed by ${filter}`);
    return this.orders.findItemsBy(principal, filter, values);
  }
}
