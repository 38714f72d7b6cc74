/** The renewal sweep's queue; a job scheduler adds one sweep job per interval. */
export const BILLING_RENEWAL_QUEUE = 'billing-renewals';
export const RENEWAL_SCHEDULER_ID = 'billing-renewal-sweep';

export interface RenewalSweepJob {
  /** Empty: a sweep runs at the worker clock's instant. */
  readonly kind: 'sweep';
}
