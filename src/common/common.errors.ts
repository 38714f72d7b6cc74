import { AppError } from './app-error';

/**
 * Errors every module raises alike. The generic codes by status are in
 * `GENERIC_CODES` (app-error.ts); a module's own are in its `*.errors.ts`.
 */
export const CommonErrors = {
  /** A field that fails its rule (type, range, format). */
  invalidAttribute: (field: string, detail: string) =>
    AppError.attribute(field, detail, 'invalid_attribute'),

  /** PATCH sent null for an attribute that cannot be cleared. */
  attributeNotNullable: (field: string) =>
    AppError.attribute(
      field,
      `The ${field} cannot be null.`,
      'attribute_not_nullable',
    ),

  /** A required attribute missing or blank. */
  attributeRequired: (field: string, detail = `The ${field} is required.`) =>
    AppError.attribute(field, detail, 'attribute_required'),

  /** A slug another record of the same scope already has. */
  slugTaken: () =>
    AppError.attribute('slug', 'The slug is already taken.', 'slug_taken'),

  /** A `test_mode` attribute that differs from the API key's mode. */
  testModeMismatch: (detail: string) =>
    AppError.attribute('test_mode', detail, 'test_mode_mismatch'),
};

/** Refunds of orders and subscription invoices (`refunds.ts`). */
export const RefundErrors = {
  notPaid: (noun: string, status: string) =>
    AppError.unprocessable({
      detail: `Only a paid ${noun} can be refunded; this one is ${status}.`,
      code: 'refund_not_paid',
    }),

  nothingToRefund: (noun: string) =>
    AppError.unprocessable({
      detail: `This ${noun} has no payment to refund.`,
      code: 'refund_nothing_left',
    }),

  amountNotPositive: () =>
    AppError.attribute(
      'amount',
      'The amount must be positive.',
      'invalid_attribute',
    ),

  refundedElsewhere: (noun: string) =>
    AppError.unprocessable({
      detail: `This ${noun}'s payment also paid another record (an order and its subscription's initial invoice are one sale), and was refunded through that one: refund the rest there.`,
      code: 'refund_payment_refunded_elsewhere',
    }),

  amountOverLeft: (left: number) =>
    AppError.attribute(
      'amount',
      `The amount may be at most ${left} cents, what is left to refund.`,
      'refund_exceeds_balance',
    ),
};
