/**
 * The events a webhook can subscribe to (DESIGN section 7), in the order of
 * the reference (and Zest's extensions). The resource each carries: orders for order_*,
 * subscriptions for subscription_* (except payments), subscription-invoices
 * for subscription_payment_*, license-keys for license_key_*.
 */
export const WEBHOOK_EVENT_NAMES = [
  'order_created',
  'order_refunded',
  // Extensions: a chargeback on an order's payment (Stripe's disputes).
  'order_disputed',
  'order_dispute_closed',
  // Extension: a refund the processor reported failed or canceled later.
  'order_refund_failed',
  'subscription_created',
  'subscription_updated',
  'subscription_cancelled',
  'subscription_resumed',
  'subscription_expired',
  'subscription_paused',
  'subscription_unpaused',
  'subscription_payment_success',
  'subscription_payment_failed',
  'subscription_payment_recovered',
  'subscription_payment_refunded',
  // Extension: as order_refund_failed, for a subscription invoice.
  'subscription_payment_refund_failed',
  'license_key_created',
  'license_key_updated',
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];
