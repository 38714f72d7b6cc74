import { AppError } from '../../common/app-error';
import { intentOutcome, IntentCheck } from './intent-outcome';
import { PaymentAttempt } from './payment-attempt.entity';
import type { StripeIntent } from './stripe-payment-gateway';

const attempt = {
  idempotencyKey: 'order-1',
  amount: 1500,
  currency: 'USD',
} as PaymentAttempt;

const intent = (fields: Partial<StripeIntent>): StripeIntent => ({
  id: 'pi_1',
  kind: 'payment',
  status: 'requires_payment_method',
  clientSecret: 'pi_1_secret_x',
  amount: 1500,
  currency: 'usd',
  metadata: { zest_order: 'order-1' },
  lastError: null,
  method: { id: 'pm_1', cardBrand: 'visa', cardLastFour: '4242' },
  ...fields,
});

/** Answers the reads in order; records cancellations; a refused one throws Stripe's 422. */
function stripe(reads: StripeIntent[], cancelRefused = false) {
  const calls = { cancels: 0 };
  const check: IntentCheck = {
    retrieve: () => Promise.resolve(reads.shift()!),
    cancel: () => {
      calls.cancels++;
      return cancelRefused
        ? Promise.reject(new AppError(422, { detail: 'succeeded' }))
        : Promise.resolve();
    },
  };
  return { check, calls };
}

describe('intentOutcome', () => {
  it('settles a succeeded intent as paid with its card', async () => {
    const { check, calls } = stripe([intent({ status: 'succeeded' })]);
    await expect(intentOutcome(attempt, check, null)).resolves.toEqual({
      status: 'succeeded',
      paymentId: 'pi_1',
      method: { id: 'pm_1', cardBrand: 'visa', cardLastFour: '4242' },
    });
    expect(calls.cancels).toBe(0);
  });

  it('leaves an open intent alone until it expires, then cancels it', async () => {
    for (const status of [
      'requires_payment_method',
      'requires_action',
      'processing',
    ]) {
      const { check } = stripe([intent({ status })]);
      await expect(intentOutcome(attempt, check, null)).resolves.toBeNull();
    }
    const { check, calls } = stripe([intent({})]);
    await expect(
      intentOutcome(attempt, check, 'Too late.'),
    ).resolves.toMatchObject({ status: 'declined', reason: 'Too late.' });
    expect(calls.cancels).toBe(1);
  });

  it('cancels a refused intent before declining, so no later confirmation can pay a failed order', async () => {
    const { check, calls } = stripe([
      intent({ lastError: 'Your card was declined.' }),
    ]);
    await expect(intentOutcome(attempt, check, null)).resolves.toMatchObject({
      status: 'declined',
      reason: 'Your card was declined.',
    });
    expect(calls.cancels).toBe(1);
  });

  it('reads again when Stripe refuses the cancellation (paid with another card meanwhile)', async () => {
    const { check } = stripe(
      [intent({ lastError: 'Declined.' }), intent({ status: 'succeeded' })],
      true,
    );
    await expect(intentOutcome(attempt, check, null)).resolves.toMatchObject({
      status: 'succeeded',
    });
  });

  it('refuses an intent whose amount, currency or order is not the attempt’s', async () => {
    for (const wrong of [
      { amount: 1400 },
      { currency: 'eur' },
      { metadata: { zest_order: 'order-2' } },
    ]) {
      const { check } = stripe([intent({ status: 'succeeded', ...wrong })]);
      await expect(intentOutcome(attempt, check, null)).rejects.toMatchObject({
        status: 422,
        errors: [expect.objectContaining({ code: 'payment_intent_mismatch' })],
      });
    }
  });
});
