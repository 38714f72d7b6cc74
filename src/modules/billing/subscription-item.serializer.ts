import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { SubscriptionItem } from './subscription-item.entity';

/** JSON:API `subscription-items`: 6 attributes. */
@Injectable()
export class SubscriptionItemSerializer implements ResourceType<SubscriptionItem> {
  readonly type = 'subscription-items';
  readonly relationships = {
    subscription: {
      kind: 'one',
      type: 'subscriptions',
      id: (item: SubscriptionItem) => item.subscriptionId,
    },
    price: {
      kind: 'one',
      type: 'prices',
      id: (item: SubscriptionItem) => item.priceId,
    },
    'usage-records': {
      kind: 'many',
      type: 'usage-records',
      filter: 'subscription_item_id',
    },
  } as const;
  readonly list = {
    filters: {
      subscription_id: filterParsers.id,
      price_id: filterParsers.id,
      store_id: filterParsers.id,
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-created_at',
  };

  id(item: SubscriptionItem) {
    return String(item.id);
  }

  attributes(item: SubscriptionItem) {
    return {
      subscription_id: item.subscriptionId,
      price_id: item.priceId,
      quantity: item.quantity,
      is_usage_based: item.isUsageBased,
      created_at: formatTimestamp(item.createdAt),
      updated_at: formatTimestamp(item.updatedAt),
    };
  }
}
