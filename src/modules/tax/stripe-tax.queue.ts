/** `record` jobs, queued right after a sale or refund of a Stripe Tax store commits. */
export const STRIPE_TAX_QUEUE = 'stripe-tax';
/**
 * The minute's retry of whatever is still open has its own queue, since the
 * embedded database could not wake a worker whose queue held a delayed job
 * (it can now); kept, as moving a job scheduler to another queue would
 * leave the one that deployments hold running unserved.
 */
export const STRIPE_TAX_SWEEP_QUEUE = 'stripe-tax-sweep';
/** The job scheduler's id: upserting it again on every worker start is a no-op. */
export const STRIPE_TAX_SCHEDULER = 'record-stripe-tax-transactions';
/** How often open Stripe Tax records are retried (Stripe was down, a crash). */
export const STRIPE_TAX_EVERY_MS = 60 * 1000;
