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
