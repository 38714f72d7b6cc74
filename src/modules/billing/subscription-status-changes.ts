import { parseTimestamp } from '../../common/timestamps';
import { WebhookEventName } from '../webhooks/webhook-events';
import { BillingErrors } from './billing.errors';
import { periodEndOf } from './subscription-billing.service';
import { PauseMode, Subscription } from './subscription.entity';
import { transition } from './subscription.state';

/** The Go client sends a zero time for "no resume date". */
const ZERO_TIME = /^0001-01-01T00:00:00/;

/*
 * The status changes of a subscription PATCH that charge nothing: cancel,
 * resume, pause and a new trial end, each through the transition table.
 */

/** PATCH `cancelled: true` (or DELETE). */
export function cancelNow(s: Subscription, now: Date) {
  // The paid period (or the trial) runs out; an unpaid period ends now.
  const endsAt =
    s.status === 'on_trial' && s.trialEndsAt
      ? s.trialEndsAt
      : s.status === 'past_due' || s.status === 'unpaid'
        ? now
        : s.renewsAt;
  transition(s, 'cancelled');
  s.endsAt = endsAt;
  s.cancelled = true;
  s.pauseMode = null;
  s.pauseResumesAt = null;
}

/** PATCH `cancelled: false`: back to the status the subscription had. */
export function resume(s: Subscription, now: Date) {
  if (s.endsAt && s.endsAt <= now) {
    throw BillingErrors.alreadyEnded();
  }
  const next =
    s.trialEndsAt && s.trialEndsAt > now
      ? 'on_trial'
      : s.failedAttempts > 0
        ? 'past_due'
        : 'active';
  transition(s, next);
  s.cancelled = false;
  s.endsAt = null;
}

/** A cancelled subscription is resumed before anything else changes. */
export function assertOpen(s: Subscription, attribute: string) {
  if (s.status === 'cancelled') {
    throw BillingErrors.cancelledFirstResume(attribute);
  }
}

/** PATCH `pause`: the event it makes, if any. */
export function setPause(
  s: Subscription,
  raw: Record<string, unknown> | null,
  now: Date,
): WebhookEventName | null {
  if (raw === null) {
    if (s.status !== 'paused') return null;
    s.pauseMode = null;
    s.pauseResumesAt = null;
    const next = s.trialEndsAt && s.trialEndsAt > now ? 'on_trial' : 'active';
    transition(s, next);
    if (s.renewsAt <= now) s.renewsAt = periodEndOf(s);
    return 'subscription_unpaused';
  }
  assertOpen(s, 'pause');
  const unknown = Object.keys(raw).filter(
    (k) => k !== 'mode' && k !== 'resumes_at',
  );
  if (unknown.length > 0) {
    throw BillingErrors.invalidPause(`Unknown pause field "${unknown[0]}".`);
  }
  if (raw.mode !== 'void' && raw.mode !== 'free') {
    throw BillingErrors.invalidPause('pause.mode must be void or free.');
  }
  let resumesAt: Date | null = null;
  if (
    raw.resumes_at !== undefined &&
    raw.resumes_at !== null &&
    !(typeof raw.resumes_at === 'string' && ZERO_TIME.test(raw.resumes_at))
  ) {
    resumesAt = parseTimestamp(raw.resumes_at);
    if (!resumesAt || resumesAt <= now) {
      throw BillingErrors.invalidPause(
        'pause.resumes_at must be a future ISO 8601 date-time, or null.',
      );
    }
  }
  if (s.status === 'unpaid' || s.status === 'past_due') {
    throw BillingErrors.unpaidCannotPause();
  }
  const wasPaused = s.status === 'paused';
  transition(s, 'paused');
  s.pauseMode = raw.mode as PauseMode;
  s.pauseResumesAt = resumesAt;
  return wasPaused ? 'subscription_updated' : 'subscription_paused';
}

/** PATCH `trial_ends_at`. */
export function setTrialEnd(s: Subscription, raw: unknown, now: Date) {
  assertOpen(s, 'trial_ends_at');
  const trialEndsAt = parseTimestamp(raw);
  if (!trialEndsAt || trialEndsAt <= now) {
    throw BillingErrors.invalidTrialEnd();
  }
  // A pause ends by unpausing (which may land on a trial), not by a new trial.
  if (s.status === 'paused') throw BillingErrors.trialNotAllowed(s.status);
  // Billing stops until the trial ends; the period in progress stays paid.
  transition(s, 'on_trial', 'trial_ends_at');
  s.trialEndsAt = trialEndsAt;
  s.renewsAt = trialEndsAt;
}
