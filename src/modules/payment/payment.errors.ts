import { AppError } from '../../common/app-error';

/**
 * The `code` of an error that answers a card the processor declined, at
 * checkout (402) or when a subscriber changes cards (422). Clients can tell
 * it from invalid input; the HTTP layer counts it against card testing.
 */
export const CARD_DECLINED = 'card_declined';

/**
 * A refusal for a declined card, with the code `card_declined`; `input`
 * names the body member it points at, if any.
 */
export function cardDeclined(
  status: 402 | 422,
  detail: string,
  input?: string,
): AppError {
  return new AppError(status, {
    detail,
    code: CARD_DECLINED,
    ...(input ? { input } : {}),
  });
}

/** Whether an error is a declined card's refusal. */
export function isCardDeclined(error: unknown): boolean {
  return (
    error instanceof AppError &&
    error.errors.some((detail) => detail.code === CARD_DECLINED)
  );
}

/** A card number that is not one (length or checksum). */
export const invalidCardNumber = () =>
  AppError.unprocessable({
    detail: 'The card number is invalid.',
    input: 'card_number',
    code: 'invalid_card_number',
  });

/** A form that needs a card number and has none. */
export const cardNumberRequired = () =>
  AppError.unprocessable({
    detail: 'A card number is required.',
    input: 'card_number',
    code: 'card_number_required',
  });

/** A live-mode payment with no live gateway configured. */
export const livePaymentsNotConfigured = () =>
  AppError.unprocessable({
    detail: 'Live payments are not configured.',
    code: 'live_payments_not_configured',
  });

/**
 * The processor did not answer (network, outage). Whether money moved is
 * unknown until the stored attempt is replayed, so the record stays pending
 * and the sweeper settles it; the client may look again later.
 */
export function processorUnavailable(): AppError {
  return new AppError(503, {
    detail:
      'The payment processor could not be reached. The payment will be settled automatically; check the order again in a few minutes.',
    code: 'payment_processor_unavailable',
  });
}

/** The processor refused the request itself (not a declined card): nothing moved. */
export function paymentFailed(failure: {
  http: number;
  reason: string;
  code: string | null;
}): AppError {
  return new AppError(failure.http ?? 422, {
    detail: failure.reason,
    code: failure.code ?? 'payment_failed',
  });
}

/** Stripe's check of the three credentials found these problems (each with its pointer and code). */
export function stripeCredentialsProblems(problems: AppError[]): AppError {
  return new AppError(
    422,
    problems.flatMap((problem) => problem.errors),
  );
}

/** An amount Stripe cannot take in its units (a three-decimal amount not ending in 0). */
export function amountNotRepresentable(
  amount: number,
  currency: string,
): AppError {
  return new AppError(422, {
    detail: `Stripe cannot charge ${amount} minor units of ${String(currency).toUpperCase()} exactly.`,
    code: 'amount_not_representable',
  });
}

/** Where the API takes a store's Stripe credentials. */
const STRIPE_POINTER = '/data/attributes/stripe';

/** A Stripe key or secret that is not one (wrong shape), with the code `stripe_credentials_invalid`. */
export function stripeCredentialInvalid(
  field: string,
  detail: string,
): AppError {
  return AppError.unprocessable({
    detail,
    code: 'stripe_credentials_invalid',
    source: { pointer: `${STRIPE_POINTER}/${field}` },
  });
}

/** A live key for test mode or a test key for live mode, with the code `stripe_key_wrong_mode`. */
export function stripeKeyWrongMode(field: string, testMode: boolean): AppError {
  const mode = testMode ? 'test' : 'live';
  return AppError.unprocessable({
    detail: `This is not a ${mode}-mode key: ${mode} mode takes ${testMode ? '`sk_test_…` and `pk_test_…`' : '`sk_live_…` and `pk_live_…`'} keys.`,
    code: 'stripe_key_wrong_mode',
    source: { pointer: `${STRIPE_POINTER}/${field}` },
  });
}

/** A card number sent where the store takes cards only through Stripe's Payment Element. */
export function hostedPaymentRequired(): AppError {
  return AppError.unprocessable({
    detail:
      'This store takes cards on its hosted checkout page (Stripe Payment Element); card numbers are not accepted here.',
    code: 'hosted_payment_required',
    source: { pointer: '/card_number' },
  });
}

/** Stripe refused the request itself (not a card decline): nothing moved. */
export function stripeRefused(
  detail: string,
  stripeCode: string | undefined,
): AppError {
  return new AppError(422, {
    detail: `Stripe refused the request${stripeCode ? ` (${stripeCode})` : ''}: ${detail}`,
    code: 'stripe_request_refused',
  });
}

/** Stripe refused the store's secret key: a merchant's configuration problem. */
export function stripeCredentialsRejected(): AppError {
  return new AppError(422, {
    detail:
      'Stripe refused the store’s secret key; the merchant must connect Stripe again.',
    code: 'stripe_credentials_rejected',
  });
}

/** A Stripe intent whose amount, currency or order is not the payment's: nothing is settled. */
export function paymentIntentMismatch(): AppError {
  return new AppError(422, {
    detail:
      'The Stripe intent does not match the payment it is recorded for (amount, currency or order).',
    code: 'payment_intent_mismatch',
  });
}

/** A payment confirmed through Stripe for a store whose Stripe account is no longer connected. */
export function stripeNotConnected(): AppError {
  return new AppError(422, {
    detail:
      'The store’s Stripe account for this mode is not connected; the payment cannot be checked.',
    code: 'stripe_not_connected',
  });
}
