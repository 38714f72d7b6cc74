/** `record` jobs, queued right after a sale or refund of a Stripe Tax store commits. */
export const STRIPE_TAX_QUEUE = 'stripe-tax';
/**
 * The minute's retry of whatever is still open has its own queue: a worker
 * whose queue holds a delayed job waits for it instead of polling, which
 * on the embedded database (no NOTIFY) would hold every nudge up to a
 * minute.
 */
export const STRIPE_TAX_SWEEP_QUEUE = 'stripe-tax-sweep';
/** The job scheduler's id: upserting it again on every worker start is a no-op. */
export const STRIPE_TAX_SCHEDULER = 'record-stripe-tax-transactions';
/** How often open Stripe Tax records are retried (Stripe was down, a crash). */
export const STRIPE_TAX_EVERY_MS = 60 * 1000;
