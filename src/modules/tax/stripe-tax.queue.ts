export const STRIPE_TAX_QUEUE = 'stripe-tax';
/** The job scheduler's id: upserting it again on every worker start is a no-op. */
export const STRIPE_TAX_SCHEDULER = 'record-stripe-tax-transactions';
/** How often open Stripe Tax records are retried (Stripe was down, a crash). */
export const STRIPE_TAX_EVERY_MS = 60 * 1000;
