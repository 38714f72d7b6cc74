import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatMoney } from '../../common/money';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { InvoiceView } from './billing-views';
import { INVOICE_STATUS_FORMATTED } from './subscription-invoice.entity';

/** JSON:API `subscription-invoices`: 34 attributes (reference section 4). */
@Injectable()
export class SubscriptionInvoiceSerializer implements ResourceType<InvoiceView> {
  readonly type = 'subscription-invoices';
  readonly relationships = {
    store: { kind: 'one', type: 'stores', id: (i: InvoiceView) => i.storeId },
    subscription: {
      kind: 'one',
      type: 'subscriptions',
      id: (i: InvoiceView) => i.subscriptionId,
    },
    customer: {
      kind: 'one',
      type: 'customers',
      id: (i: InvoiceView) => i.customerId,
    },
  } as const;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      status: filterParsers.oneOf('pending', 'paid', 'void', 'refunded'),
      refunded: filterParsers.boolean,
      subscription_id: filterParsers.id,
      customer_id: filterParsers.id,
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-createdAt',
  };

  id(i: InvoiceView) {
    return String(i.id);
  }

  attributes(i: InvoiceView) {
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
      // Extension attributes (dunning): charges made, and the next retry.
      attempt_count: i.attemptCount,
      next_retry_at: formatTimestamp(i.nextRetryAt),
      // Extension: the store's gap-free invoice number, once paid.
      invoice_number: i.invoiceNumber,
      created_at: formatTimestamp(i.createdAt),
      updated_at: formatTimestamp(i.updatedAt),
      test_mode: i.testMode,
    };
  }
}
