import { AppError } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** Why a code cannot be used now: shown to the buyer, and a 422's code and detail. */
export interface DiscountRefusal {
  code: string;
  detail: string;
}

/** The refusals of a discount code at checkout (`discountRefusal`). */
export const DiscountRefusals = {
  invalid: (code: string): DiscountRefusal => ({
    code: 'discount_invalid',
    detail: `The discount code ${code} is not valid.`,
  }),
  notActiveYet: (code: string): DiscountRefusal => ({
    code: 'discount_not_active',
    detail: `The discount code ${code} is not active yet.`,
  }),
  expired: (code: string): DiscountRefusal => ({
    code: 'discount_expired',
    detail: `The discount code ${code} has expired.`,
  }),
  exhausted: (code: string): DiscountRefusal => ({
    code: 'discount_exhausted',
    detail: `The discount code ${code} has been fully redeemed.`,
  }),
  notApplicable: (code: string): DiscountRefusal => ({
    code: 'discount_not_applicable',
    detail: `The discount code ${code} does not apply to this product.`,
  }),
};

/** The discount module's errors. */
export const DiscountErrors = {
  ...CommonErrors,

  /** A purchase's discount code refused: points at the body's `discount_code`. */
  refused: (refusal: DiscountRefusal) =>
    AppError.unprocessable({ ...refusal, input: 'discount_code' }),

  invalidTimestamp: (field: string) =>
    AppError.attribute(
      field,
      `${field} must be an ISO 8601 timestamp or null.`,
      'invalid_attribute',
    ),

  storeNotFound: () => AppError.relatedNotFound('store'),

  percentOver100: () =>
    AppError.attribute(
      'amount',
      'A percent discount can be at most 100.',
      'discount_percent_over_100',
    ),

  maxRedemptionsRequired: () =>
    AppError.attribute(
      'max_redemptions',
      'max_redemptions must be at least 1 when is_limited_redemptions is true.',
      'max_redemptions_required',
    ),

  expiresBeforeStart: () =>
    AppError.attribute(
      'expires_at',
      'expires_at must be after starts_at.',
      'discount_expires_before_start',
    ),

  variantsRequired: () =>
    AppError.unprocessable({
      detail:
        'A discount limited to products needs at least one variant in the variants relationship.',
      relationship: 'variants',
      code: 'discount_variants_required',
    }),

  variantNotFound: () =>
    AppError.relatedNotFound('variants', 'variant_not_found'),

  codeTaken: (code: string) =>
    AppError.attribute(
      'code',
      `The code ${code} is already used by another discount of this store.`,
      'discount_code_taken',
    ),
};
