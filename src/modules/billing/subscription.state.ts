import { BillingErrors } from './billing.errors';

export const SUBSCRIPTION_STATUSES = [
  'on_trial',
  'active',
  'paused',
  'past_due',
  'unpaid',
  'cancelled',
  'expired',
] as const;

export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Every status change a subscription may make; anything else is a bug or a 422. */
const TRANSITIONS: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  on_trial: ['active', 'past_due', 'paused', 'cancelled'],
  active: ['past_due', 'paused', 'cancelled', 'on_trial'],
  past_due: ['active', 'unpaid', 'paused', 'cancelled'],
  unpaid: ['active', 'cancelled'],
  paused: ['active', 'on_trial', 'cancelled'],
  cancelled: ['active', 'on_trial', 'paused', 'past_due', 'unpaid', 'expired'],
  expired: [],
};

export function canTransition(
  from: SubscriptionStatus,
  to: SubscriptionStatus,
): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/**
 * The one way a subscription's status changes: checks the move against
 * `TRANSITIONS` and sets it. A move the table forbids is a 422 (on
 * `attribute` when the request named the field that asked for it) and
 * leaves the record untouched.
 */
export function transition(
  record: { status: SubscriptionStatus },
  to: SubscriptionStatus,
  field?: string,
): void {
  if (!canTransition(record.status, to)) {
    throw BillingErrors.transitionNotAllowed(record.status, to, field);
  }
  record.status = to;
}

export const STATUS_FORMATTED: Record<SubscriptionStatus, string> = {
  on_trial: 'On Trial',
  active: 'Active',
  paused: 'Paused',
  past_due: 'Past due',
  unpaid: 'Unpaid',
  cancelled: 'Cancelled',
  expired: 'Expired',
};
