import { formatMoney } from '../../common/money';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceRenderer } from '../../http/json-api/resource';
import { InvoiceView, SubscriptionView } from './billing-views';
import { InvoiceStatus } from './subscription-invoice.entity';
import { SubscriptionItem } from './subscription-item.entity';
import { STATUS_FORMATTED } from './subscription.state';
import { UsageRecord } from './usage-record.entity';

/*
 * How each billing resource renders. Kept apart from the serializers (which
 * find records through the services) so services can hand them to the outbox
 * without an import cycle.
 */

/** JSON:API `subscriptions`: 25 attributes (reference section 4). */
export const SUBSCRIPTION_RENDERER: ResourceRenderer<SubscriptionView> = {
  type: 'subscriptions',
  relationships: {
    store: { kind: 'one', type: 'stores', id: (s) => s.storeId },
    customer: { kind: 'one', type: 'customers', id: (s) => s.customerId },
    order: { kind: 'one', type: 'orders', id: (s) => s.orderId },
    'order-item': {
      kind: 'one',
      type: 'order-items',
      id: (s) => s.orderItemId,
    },
    product: { kind: 'one', type: 'products', id: (s) => s.productId },
    variant: { kind: 'one', type: 'variants', id: (s) => s.variantId },
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
  },
  id: (s) => String(s.id),
  attributes: (s) => ({
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
    first_subscription_item: s.firstItem ? renderFirstItem(s.firstItem) : null,
    urls: s.urls,
    renews_at: formatTimestamp(s.renewsAt),
    ends_at: formatTimestamp(s.endsAt),
    created_at: formatTimestamp(s.createdAt),
    updated_at: formatTimestamp(s.updatedAt),
    test_mode: s.testMode,
  }),
};

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

/** JSON:API `subscription-items`: 6 attributes. */
export const SUBSCRIPTION_ITEM_RENDERER: ResourceRenderer<SubscriptionItem> = {
  type: 'subscription-items',
  relationships: {
    subscription: {
      kind: 'one',
      type: 'subscriptions',
      id: (item) => item.subscriptionId,
    },
    price: { kind: 'one', type: 'prices', id: (item) => item.priceId },
    'usage-records': {
      kind: 'many',
      type: 'usage-records',
      filter: 'subscription_item_id',
    },
  },
  id: (item) => String(item.id),
  attributes: (item) => ({
    subscription_id: item.subscriptionId,
    price_id: item.priceId,
    quantity: item.quantity,
    is_usage_based: item.isUsageBased,
    created_at: formatTimestamp(item.createdAt),
    updated_at: formatTimestamp(item.updatedAt),
  }),
};

/** JSON:API `usage-records`: 5 attributes. */
export const USAGE_RECORD_RENDERER: ResourceRenderer<UsageRecord> = {
  type: 'usage-records',
  relationships: {
    'subscription-item': {
      kind: 'one',
      type: 'subscription-items',
      id: (record) => record.subscriptionItemId,
    },
  },
  id: (record) => String(record.id),
  attributes: (record) => ({
    subscription_item_id: record.subscriptionItemId,
    quantity: record.quantity,
    action: record.action,
    created_at: formatTimestamp(record.createdAt),
    updated_at: formatTimestamp(record.updatedAt),
  }),
};

export const INVOICE_STATUS_FORMATTED: Record<InvoiceStatus, string> = {
  pending: 'Pending',
  paid: 'Paid',
  void: 'Void',
  refunded: 'Refunded',
};

/** JSON:API `subscription-invoices`: 34 attributes (reference section 4). */
export const SUBSCRIPTION_INVOICE_RENDERER: ResourceRenderer<InvoiceView> = {
  type: 'subscription-invoices',
  relationships: {
    store: { kind: 'one', type: 'stores', id: (i) => i.storeId },
    subscription: {
      kind: 'one',
      type: 'subscriptions',
      id: (i) => i.subscriptionId,
    },
    customer: { kind: 'one', type: 'customers', id: (i) => i.customerId },
  },
  id: (i) => String(i.id),
  attributes: (i) => {
    const money = (cents: number) => formatMoney(cents, i.currency);
    return {
      store_id: i.storeId,
      subscription_id: i.subscriptionId,
      customer_id: i.customerId,
      user_name: i.userName,
      user_email: i.userEmail,
      billing_reason: i.billingReason,
      // Spec 2.11: empty strings, not null, for non-card payments.
      card_brand: i.cardBrand ?? '',
      card_last_four: i.cardLastFour ?? '',
      currency: i.currency,
      // Spec 2.11: a number, like orders (the reference's "1.00000000" string loses).
      currency_rate: Number(i.currencyRate),
      status: i.status,
      status_formatted: INVOICE_STATUS_FORMATTED[i.status],
      // Fully refunded, as on orders; a partial refund shows in refunded_amount.
      refunded: i.status === 'refunded',
      refunded_at: formatTimestamp(i.refundedAt),
      subtotal: i.subtotal,
      discount_total: i.discountTotal,
      tax: i.tax,
      tax_inclusive: i.taxInclusive,
      total: i.total,
      refunded_amount: i.refundedAmount,
      refunded_amount_usd: i.refundedAmountUsd,
      refunded_amount_formatted: money(i.refundedAmount),
      subtotal_usd: i.subtotalUsd,
      discount_total_usd: i.discountTotalUsd,
      tax_usd: i.taxUsd,
      total_usd: i.totalUsd,
      subtotal_formatted: money(i.subtotal),
      discount_total_formatted: money(i.discountTotal),
      tax_formatted: money(i.tax),
      total_formatted: money(i.total),
      urls: { invoice_url: i.invoiceUrl },
      created_at: formatTimestamp(i.createdAt),
      updated_at: formatTimestamp(i.updatedAt),
      test_mode: i.testMode,
    };
  },
};
