import { SubscriptionInvoice } from './subscription-invoice.entity';
import { SubscriptionItem } from './subscription-item.entity';
import { Subscription } from './subscription.entity';

export interface SubscriptionUrls {
  update_payment_method: string;
  customer_portal: string;
  customer_portal_update_subscription: string;
}

/** A subscription as rendered: its first item and fresh 24-hour signed links. */
export type SubscriptionView = Subscription & {
  firstItem: SubscriptionItem | null;
  urls: SubscriptionUrls;
};

/** An invoice as rendered: its signed, non-expiring PDF link (null while pending). */
export type InvoiceView = SubscriptionInvoice & { invoiceUrl: string | null };

export interface CurrentUsage {
  period_start: string;
  period_end: string;
  quantity: number;
  interval_unit: string;
  interval_quantity: number;
}
