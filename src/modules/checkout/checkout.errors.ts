import { AppError, ErrorDetail } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** A refused member of a purchase body, for errors that list several. */
export function invalidInput(
  input: string,
  detail: string,
  code = 'invalid_input',
): ErrorDetail {
  return { detail, input, code };
}

/** The checkout module's errors: checkouts, the hosted page and purchases. */
export const CheckoutErrors = {
  ...CommonErrors,

  storeNotFound: () => AppError.relatedNotFound('store'),
  variantNotFound: () => AppError.relatedNotFound('variant'),

  variantOfOtherStore: () =>
    AppError.unprocessable({
      detail: 'The variant does not belong to this store.',
      relationship: 'variant',
      code: 'variant_store_mismatch',
    }),

  variantNotSellable: () =>
    AppError.unprocessable({
      detail:
        'The variant cannot be sold yet: its product must be published and the variant published and priced.',
      relationship: 'variant',
      code: 'variant_not_sellable',
    }),

  enabledVariantNotPurchasable: (index: number, id: number) =>
    AppError.attribute(
      `product_options/enabled_variants/${index}`,
      `Variant ${id} is not a purchasable variant of this product.`,
      'variant_not_purchasable',
    ),

  enabledVariantsWithoutOwn: () =>
    AppError.attribute(
      'product_options/enabled_variants',
      'enabled_variants must include the checkout’s variant.',
      'enabled_variants_missing_variant',
    ),

  quantityOfOtherProduct: (index: number, variantId: number) =>
    AppError.attribute(
      `checkout_data/variant_quantities/${index}/variant_id`,
      `Variant ${variantId} is not a variant of this product.`,
      'variant_not_of_product',
    ),

  checkoutNotFound: () =>
    AppError.notFound('This checkout does not exist.', 'checkout_not_found'),

  checkoutExpired: () =>
    AppError.forbidden('This checkout has expired.', 'checkout_expired'),

  noLongerForSale: () =>
    AppError.notFound(
      'This product is no longer for sale.',
      'product_not_for_sale',
    ),

  notForSale: () =>
    AppError.notFound('This product is not for sale.', 'product_not_for_sale'),

  linkExpired: () =>
    AppError.forbidden(
      'This checkout link has expired.',
      'checkout_link_expired',
    ),

  linkInvalid: () =>
    AppError.forbidden(
      'This checkout link is invalid.',
      'checkout_link_invalid',
    ),

  bodyNotObject: () =>
    AppError.badRequest(
      'The body must be a JSON object.',
      undefined,
      'malformed_request',
    ),

  /** A checkout kind other than custom and buy: the route does not exist. */
  unknownKind: () =>
    AppError.notFound('No route matches this path.', 'route_not_found'),

  /** One or more refused members of a purchase body (`invalidInput`). */
  invalidPurchase: (errors: ErrorDetail | ErrorDetail[]) =>
    AppError.unprocessable(errors),

  notAString: (input: string, name: string) =>
    AppError.unprocessable(invalidInput(input, `${name} must be a string.`)),

  billingAddressNotObject: () =>
    AppError.unprocessable(
      invalidInput(
        'billing_address',
        'billing_address must be an object with country and zip.',
      ),
    ),

  amountInJson: () =>
    AppError.unprocessable(
      invalidInput(
        'amount',
        'amount is the hosted page’s field; send custom_price in cents instead.',
      ),
    ),

  /** A pay-what-you-want amount the price does not allow. */
  invalidAmount: (input: 'custom_price' | 'amount', detail: string) =>
    AppError.unprocessable(invalidInput(input, detail, 'invalid_amount')),

  variantNotOffered: () =>
    AppError.unprocessable(
      invalidInput(
        'variant_id',
        'This variant cannot be bought here.',
        'variant_not_offered',
      ),
    ),

  variantWithoutPrice: () =>
    AppError.unprocessable(
      invalidInput(
        'variant_id',
        'This variant is not for sale.',
        'variant_not_for_sale',
      ),
    ),

  totalTooLarge: () =>
    AppError.unprocessable(
      invalidInput(
        'quantity',
        'The total is too large for one order.',
        'order_total_too_large',
      ),
    ),

  /** Outside the variant's `min_quantity`–`max_quantity`. */
  invalidQuantity: (min: number, max: number) =>
    AppError.unprocessable(
      invalidInput(
        'quantity',
        `The quantity must be a whole number from ${min} to ${max}.`,
        'invalid_quantity',
      ),
    ),

  /** A hosted Stripe payment submitted without the page's own submission token. */
  submissionInvalid: () =>
    AppError.unprocessable(
      invalidInput(
        'submission',
        'This form is out of date; reload the checkout page and try again.',
        'checkout_submission_invalid',
      ),
    ),

  /** A submission token already used for an order that failed, or for another checkout. */
  submissionSpent: () =>
    new AppError(409, {
      detail:
        'This form was already submitted and its payment did not go through; reload the checkout page to try again.',
      code: 'checkout_submission_spent',
    }),
};
