import { Inject, Injectable } from '@nestjs/common';
import { formatMoney } from '../../common/money';
import { SignedUrls } from '../../common/signed-urls.service';
import { formatTimestamp } from '../../common/timestamps';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ResourceRenderer } from '../../http/json-api/resource';
import { OrderItem } from './order-item.entity';
import { orderStatusLabel } from './order-status';
import { OrderView } from './order.repository';

export const RECEIPT_PATH = '/my-orders';

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

/**
 * How an order renders (38 attributes). Kept apart from the `orders`
 * resource type so the outbox can render orders inside the purchase
 * transaction without a dependency cycle through the finders.
 */
@Injectable()
export class OrderRenderer implements ResourceRenderer<OrderView> {
  readonly type = 'orders';
  readonly relationships = {
    store: { kind: 'one', type: 'stores', id: (o: OrderView) => o.storeId },
    customer: {
      kind: 'one',
      type: 'customers',
      id: (o: OrderView) => o.customerId,
    },
    'order-items': { kind: 'many', type: 'order-items', filter: 'order_id' },
    subscriptions: { kind: 'many', type: 'subscriptions', filter: 'order_id' },
    'license-keys': { kind: 'many', type: 'license-keys', filter: 'order_id' },
    'discount-redemptions': {
      kind: 'many',
      type: 'discount-redemptions',
      filter: 'order_id',
    },
  } as const;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly signedUrls: SignedUrls,
  ) {}

  id(order: OrderView) {
    return String(order.id);
  }

  /** The buyer's receipt page: signed, and valid as long as the order exists. */
  receiptUrl(identifier: string): string {
    return this.signedUrls.sign(
      this.config.http.checkoutBaseUrl,
      `${RECEIPT_PATH}/${identifier}`,
    );
  }

  attributes(order: OrderView) {
    const money = (cents: number) => formatMoney(cents, order.currency);
    const item = order.firstItem;
    return {
      store_id: order.storeId,
      customer_id: order.customerId,
      identifier: order.identifier,
      order_number: order.orderNumber,
      user_name: order.userName,
      user_email: order.userEmail,
      currency: order.currency,
      currency_rate: order.currencyRate,
      tax_name: order.taxName,
      tax_rate: order.taxRate,
      tax_inclusive: order.taxInclusive,
      status: order.status,
      status_formatted: orderStatusLabel(order.status),
      refunded: order.status === 'refunded',
      refunded_at: formatTimestamp(order.refundedAt),
      subtotal: order.subtotal,
      discount_total: order.discountTotal,
      tax: order.tax,
      setup_fee: order.setupFee,
      total: order.total,
      refunded_amount: order.refundedAmount,
      subtotal_usd: order.subtotalUsd,
      discount_total_usd: order.discountTotalUsd,
      tax_usd: order.taxUsd,
      setup_fee_usd: order.setupFeeUsd,
      total_usd: order.totalUsd,
      refunded_amount_usd: order.refundedAmountUsd,
      subtotal_formatted: money(order.subtotal),
      discount_total_formatted: money(order.discountTotal),
      tax_formatted: money(order.tax),
      setup_fee_formatted: money(order.setupFee),
      total_formatted: money(order.total),
      refunded_amount_formatted: money(order.refundedAmount),
      first_order_item: item
        ? { id: item.id, ...orderItemAttributes(item) }
        : null,
      urls: { receipt: this.receiptUrl(order.identifier) },
      created_at: formatTimestamp(order.createdAt),
      updated_at: formatTimestamp(order.updatedAt),
      test_mode: order.testMode,
    };
  }
}
