import { AppError } from '../../common/app-error';
import { PaymentAttempt, PaymentOutcome } from './payment-attempt.entity';
import { paymentIntentMismatch } from './payment.errors';
import { toStripeAmount } from './stripe-amounts';
import type { StripeIntent } from './stripe-payment-gateway';

/** Reading and canceling one intent in the store's Stripe account. */
export interface IntentCheck {
  retrieve(): Promise<StripeIntent>;
  cancel(): Promise<void>;
}

/** Rounds of read-then-cancel before an intent that keeps moving is left for later. */
const ROUNDS = 3;

/**
 * What an intent attempt settles as, from its intent now: `succeeded` when
 * the intent has; `declined` when it was canceled, or refused (a declined
 * card or failed 3-D Secure leave it `requires_payment_method` with an
 * error), which first cancels it so that no later confirmation can take
 * money for an order already failed; null while the buyer may still
 * complete it. `expired` (a reason) cancels an open intent too. A
 * cancellation Stripe refuses (the intent succeeded or was canceled in
 * the meantime) reads the intent again.
 */
export async function intentOutcome(
  attempt: PaymentAttempt,
  check: IntentCheck,
  expired: string | null,
): Promise<PaymentOutcome | null> {
  for (let round = 0; round < ROUNDS; round++) {
    const intent = await check.retrieve();
    assertMatches(attempt, intent);
    if (intent.status === 'succeeded')
      return {
        status: 'succeeded',
        paymentId: intent.id,
        method: intent.method,
      };
    if (intent.status === 'canceled')
      return {
        status: 'declined',
        reason: intent.lastError ?? expired ?? 'The payment was canceled.',
        method: intent.method,
      };
    const refused =
      intent.status === 'requires_payment_method' && intent.lastError !== null;
    if (!refused && !expired) return null;
    try {
      await check.cancel();
    } catch (error) {
      if (error instanceof AppError && error.status < 500) continue;
      throw error;
    }
    return {
      status: 'declined',
      reason: (refused ? intent.lastError : expired) ?? 'The payment failed.',
      method: intent.method,
    };
  }
  return null;
}

/** The intent must be the one opened for this attempt: its order, amount and currency. */
function assertMatches(attempt: PaymentAttempt, intent: StripeIntent): void {
  if (intent.metadata.zest_order !== attempt.idempotencyKey)
    throw paymentIntentMismatch();
  if (intent.kind === 'setup') {
    if (attempt.amount !== 0) throw paymentIntentMismatch();
    return;
  }
  if (
    intent.currency !== attempt.currency.toLowerCase() ||
    intent.amount !== toStripeAmount(attempt.amount, attempt.currency)
  )
    throw paymentIntentMismatch();
}
