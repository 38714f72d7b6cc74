import { AppError, sourceOf } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The billing module's errors: subscriptions, their items, usage and invoices. */
export const BillingErrors = {
  ...CommonErrors,

  subscriptionExpired: () =>
    AppError.unprocessable({
      detail: 'An expired subscription cannot be changed.',
      code: 'subscription_expired',
    }),

  /** The subscriber's portal: the same refusal in the buyer's words. */
  subscriptionEnded: () =>
    AppError.unprocessable({
      detail: 'This subscription has ended.',
      code: 'subscription_expired',
    }),

  /** The portal's Stripe return link, forged or of another subscription. */
  returnLinkInvalid: () =>
    AppError.forbidden('This link is invalid.', 'link_invalid'),

  subscriptionNotFound: () =>
    AppError.notFound(
      'This subscription does not exist.',
      'subscription_not_found',
    ),

  /** On `field` when the request named the attribute that asked for the move. */
  transitionNotAllowed: (from: string, to: string, field?: string) =>
    AppError.unprocessable({
      detail: `A subscription cannot go from ${from} to ${to}.`,
      code: 'subscription_transition_not_allowed',
      field,
    }),

  alreadyEnded: () =>
    AppError.attribute(
      'cancelled',
      'The subscription has already ended and cannot be resumed.',
      'subscription_already_ended',
    ),

  cancelledFirstResume: (field: string) =>
    AppError.attribute(
      field,
      'Resume the cancelled subscription (cancelled: false) before changing it.',
      'subscription_cancelled',
    ),

  invalidPause: (detail: string) =>
    AppError.attribute('pause', detail, 'invalid_attribute'),

  unpaidCannotPause: () =>
    AppError.attribute(
      'pause',
      'A subscription with an unpaid invoice cannot be paused.',
      'subscription_unpaid',
    ),

  invalidTrialEnd: () =>
    AppError.attribute(
      'trial_ends_at',
      'trial_ends_at must be a future ISO 8601 date-time (send billing_anchor 0 to end a trial now).',
      'invalid_attribute',
    ),

  trialNotAllowed: (status: string) =>
    AppError.attribute(
      'trial_ends_at',
      status === 'paused'
        ? 'A paused subscription cannot be put on a trial; unpause it first.'
        : `A ${status} subscription cannot be put on a trial.`,
      'subscription_trial_not_allowed',
    ),

  variantNotFound: () =>
    AppError.attribute(
      'variant_id',
      'The variant does not exist.',
      'variant_not_found',
    ),

  /** The portal switches only among the product's published plans. */
  planNotOffered: () =>
    AppError.attribute(
      'variant_id',
      'This plan is not offered for this subscription: choose one of its product’s published plans.',
      'plan_not_offered',
    ),

  /** Outside the plan variant's `min_quantity`–`max_quantity`. */
  quantityOutOfRange: (min: number, max: number) =>
    AppError.attribute(
      'quantity',
      `The quantity must be a whole number from ${min} to ${max}.`,
      'quantity_out_of_range',
    ),

  variantWithoutSubscriptionPrice: () =>
    AppError.attribute(
      'variant_id',
      'The variant has no subscription price.',
      'variant_not_subscription',
    ),

  billingModelSwitch: () =>
    AppError.attribute(
      'variant_id',
      'A subscription cannot switch between usage-based and quantity-based billing.',
      'billing_model_switch',
    ),

  anchorFixed: (status: string) =>
    AppError.attribute(
      'billing_anchor',
      `The billing anchor of a ${status} subscription cannot be moved.`,
      'billing_anchor_fixed',
    ),

  anchorNotMonthly: () =>
    AppError.attribute(
      'billing_anchor',
      'A billing anchor day applies to monthly and yearly subscriptions only.',
      'billing_anchor_not_monthly',
    ),

  /** The portal's new card while a charge of the open invoice is in flight. */
  invoicePaymentInProgress: () =>
    new AppError(409, {
      detail:
        'A payment of this subscription is being processed; try again in a minute.',
      code: 'invoice_payment_in_progress',
    }),

  usageBasedQuantity: () =>
    AppError.unprocessable({
      detail:
        'The quantity of a usage-based subscription item is reported through usage records.',
      field: 'quantity',
      code: 'subscription_item_usage_based',
    }),

  itemsLocked: (status: string) =>
    AppError.unprocessable({
      detail: `The items of a ${status} subscription cannot be changed.`,
      code: 'subscription_items_locked',
    }),

  subscriptionItemNotFound: () => AppError.relatedNotFound('subscription-item'),

  subscriptionItemRequired: () =>
    AppError.unprocessable({
      detail: 'The subscription-item relationship is required.',
      relationship: 'subscription-item',
      code: 'relationship_required',
    }),

  notUsageBased: () =>
    AppError.unprocessable({
      detail: 'The subscription item is not usage-based.',
      relationship: 'subscription-item',
      code: 'subscription_item_not_usage_based',
    }),

  /**
   * A member of a batch post refused: its error as a single post would
   * have it, pointed at the member (`/data/<index>/…`).
   */
  inBatch: (index: number, error: AppError) =>
    new AppError(
      error.status,
      error.errors.map((detail) => {
        const source = sourceOf(detail);
        return {
          ...detail,
          relationship: undefined,
          field: undefined,
          source:
            source && 'pointer' in source
              ? {
                  pointer: source.pointer.replace(/^\/data/, `/data/${index}`),
                }
              : source,
        };
      }),
    ),

  usageNotAccepted: (status: string) =>
    AppError.unprocessable({
      detail: `Usage cannot be reported for a ${status} subscription.`,
      relationship: 'subscription-item',
      code: 'usage_not_accepted',
    }),
};
