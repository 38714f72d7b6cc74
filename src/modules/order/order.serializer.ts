import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatMoney, refundedTax } from '../../common/money';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { orderItemAttributes } from './order-item.serializer';
import { OrderReceipts } from './order-receipts';
import { orderStatusLabel } from './order-status';
import { OrderView } from './order.repository';

/** JSON:API `orders`: the spec's 38 attributes, then Zest's `dispute`, `tax_note`, `refunded_tax`, `tax_evidence` and `invoice_number`. */
@Injectable()
export class OrderSerializer implements ResourceType<OrderView> {
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

  readonly list = {
    filters: {
      store_id: filterParsers.id,
      user_email: filterParsers.email,
      order_number: filterParsers.id,
      customer_id: filterParsers.id,
    },
    sorts: ['created_at', 'updated_at', 'order_number', 'total'],
    defaultSort: '-createdAt',
    cursors: true,
  };

  constructor(private readonly receipts: OrderReceipts) {}

  id(order: OrderView) {
    return String(order.id);
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
      urls: { receipt: this.receipts.url(order.identifier) },
      created_at: formatTimestamp(order.createdAt),
      updated_at: formatTimestamp(order.updatedAt),
      test_mode: order.testMode,
      dispute: order.dispute
        ? {
            status: order.dispute.status,
            reason: order.dispute.reason,
            amount: order.dispute.amount,
            created_at: order.dispute.createdAt,
          }
        : null,
      tax_note: order.taxNote,
      refunded_tax: refundedTax(order.tax, order.total, order.refundedAmount),
      tax_evidence: {
        billing_country: order.billingCountry,
        billing_zip: order.billingZip,
        billing_region: order.billingRegion,
        tax_number: order.taxNumber,
        tax_number_check: order.taxNumberCheck,
        rate_source: order.taxRateSource,
      },
      invoice_number: order.invoiceNumber,
    };
  }
}
