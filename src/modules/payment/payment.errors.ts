import { AppError, ErrorDetail } from '../../common/app-error';

/**
 * The `code` of an error that answers a card the processor declined, at
 * checkout (402) or when a subscriber changes cards (422). Clients can tell
 * it from invalid input; the HTTP layer counts it against card testing.
 */
export const CARD_DECLINED = 'card_declined';

/** A refusal for a declined card, with the code `card_declined`. */
export function cardDeclined(
  status: 402 | 422,
  detail: string,
  source?: ErrorDetail['source'],
): AppError {
  return new AppError(status, {
    detail,
    code: CARD_DECLINED,
    ...(source ? { source } : {}),
  });
}

/** Whether an error is a declined card's refusal. */
export function isCardDeclined(error: unknown): boolean {
  return (
    error instanceof AppError &&
    error.errors.some((detail) => detail.code === CARD_DECLINED)
  );
}
