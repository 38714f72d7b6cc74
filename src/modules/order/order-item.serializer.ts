import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { OrderItem } from './order-item.entity';

/** The 12 keys of `first_order_item` (as the order-items resource, plus `id` and `order_id`). */
export function orderItemAttributes(item: OrderItem) {
  return {
    order_id: item.orderId,
    product_id: item.productId,
    variant_id: item.variantId,
    price_id: item.priceId,
    product_name: item.productName,
    variant_name: item.variantName,
    price: item.price,
    quantity: item.quantity,
    created_at: formatTimestamp(item.createdAt),
    updated_at: formatTimestamp(item.updatedAt),
    test_mode: item.testMode,
  };
}

/** JSON:API `order-items`: 11 attributes. */
@Injectable()
export class OrderItemSerializer implements ResourceType<OrderItem> {
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

  id(item: OrderItem) {
    return String(item.id);
  }

  attributes(item: OrderItem) {
    return orderItemAttributes(item);
  }
}
