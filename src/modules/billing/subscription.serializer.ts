import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { SubscriptionView } from './billing-views';
import { SubscriptionItem } from './subscription-item.entity';
import { STATUS_FORMATTED, SUBSCRIPTION_STATUSES } from './subscription.state';

/** JSON:API `subscriptions`: 25 attributes (reference section 4). */
@Injectable()
export class SubscriptionSerializer implements ResourceType<SubscriptionView> {
  readonly type = 'subscriptions';
  readonly relationships = {
    store: {
      kind: 'one',
      type: 'stores',
      id: (s: SubscriptionView) => s.storeId,
    },
    customer: {
      kind: 'one',
      type: 'customers',
      id: (s: SubscriptionView) => s.customerId,
    },
    order: {
      kind: 'one',
      type: 'orders',
      id: (s: SubscriptionView) => s.orderId,
    },
    'order-item': {
      kind: 'one',
      type: 'order-items',
      id: (s: SubscriptionView) => s.orderItemId,
    },
    product: {
      kind: 'one',
      type: 'products',
      id: (s: SubscriptionView) => s.productId,
    },
    variant: {
      kind: 'one',
      type: 'variants',
      id: (s: SubscriptionView) => s.variantId,
    },
    'subscription-items': {
      kind: 'many',
      type: 'subscription-items',
      filter: 'subscription_id',
    },
    'subscription-invoices': {
      kind: 'many',
      type: 'subscription-invoices',
      filter: 'subscription_id',
    },
  } as const;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      order_id: filterParsers.id,
      order_item_id: filterParsers.id,
      product_id: filterParsers.id,
      variant_id: filterParsers.id,
      customer_id: filterParsers.id,
      user_email: filterParsers.email,
      status: filterParsers.oneOf(...SUBSCRIPTION_STATUSES),
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-createdAt',
  };

  id(s: SubscriptionView) {
    return String(s.id);
  }

  attributes(s: SubscriptionView) {
    return {
      store_id: s.storeId,
      customer_id: s.customerId,
      order_id: s.orderId,
      order_item_id: s.orderItemId,
      product_id: s.productId,
      variant_id: s.variantId,
      product_name: s.productName,
      variant_name: s.variantName,
      user_name: s.userName,
      user_email: s.userEmail,
      status: s.status,
      status_formatted: STATUS_FORMATTED[s.status],
      card_brand: s.cardBrand,
      card_last_four: s.cardLastFour,
      pause: s.pauseMode
        ? {
            mode: s.pauseMode,
            resumes_at: formatTimestamp(s.pauseResumesAt),
          }
        : null,
      cancelled: s.cancelled,
      trial_ends_at: formatTimestamp(s.trialEndsAt),
      billing_anchor: s.billingAnchor,
      first_subscription_item: s.firstItem
        ? renderFirstItem(s.firstItem)
        : null,
      urls: s.urls,
      renews_at: formatTimestamp(s.renewsAt),
      ends_at: formatTimestamp(s.endsAt),
      created_at: formatTimestamp(s.createdAt),
      updated_at: formatTimestamp(s.updatedAt),
      test_mode: s.testMode,
    };
  }
}

/** `first_subscription_item` on a subscription: the item's attributes plus its id (7 keys). */
export function renderFirstItem(item: SubscriptionItem) {
  return {
    id: item.id,
    subscription_id: item.subscriptionId,
    price_id: item.priceId,
    quantity: item.quantity,
    is_usage_based: item.isUsageBased,
    created_at: formatTimestamp(item.createdAt),
    updated_at: formatTimestamp(item.updatedAt),
  };
}
