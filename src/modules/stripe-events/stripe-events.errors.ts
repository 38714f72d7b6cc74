import { AppError } from '../../common/app-error';

/**
 * The Stripe webhook endpoint's refusals. Stripe shows the status and body
 * in the endpoint's delivery log and retries anything but a 2xx.
 */
export const StripeEventErrors = {
  /**
   * No store here takes Stripe's events in the event's mode: no such store,
   * or it has not connected Stripe for that mode (its signing secret).
   */
  endpointUnknown: () =>
    AppError.notFound(
      'No store takes Stripe events at this address in this mode: connect the store to Stripe (with its webhook signing secret) first.',
      'stripe_endpoint_unknown',
    ),

  /** `Stripe-Signature` missing, malformed, too old, or not made with the store's signing secret. */
  signatureInvalid: () =>
    AppError.badRequest(
      'The Stripe-Signature header is missing or does not match the body and the store’s webhook signing secret.',
      { header: 'Stripe-Signature' },
      'stripe_signature_invalid',
    ),

  /** A body that is not a Stripe event (no `id`, `type` or boolean `livemode`). */
  eventMalformed: () =>
    AppError.badRequest(
      'The body is not a Stripe event.',
      undefined,
      'stripe_event_malformed',
    ),
};
