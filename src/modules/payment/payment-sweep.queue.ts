export const PAYMENT_SWEEP_QUEUE = 'payment-sweep';
/** The job scheduler's id: upserting it again on every worker start is a no-op. */
export const PAYMENT_SWEEP_SCHEDULER = 'settle-stale-payment-attempts';
export const PAYMENT_SWEEP_EVERY_MS = 60 * 1000;
