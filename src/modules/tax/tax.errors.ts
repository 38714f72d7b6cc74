import { AppError } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The tax module's errors. */
export const TaxErrors = {
  ...CommonErrors,

  /** A purchase with an EU/UK VAT number whose format or check digits are wrong. */
  invalidVatNumber: (country: string) =>
    AppError.unprocessable({
      detail: `The tax number is not a valid ${country} VAT number (it starts with the country prefix, such as ${country === 'GR' ? 'EL' : country}). Correct it, or leave it empty to buy as a consumer.`,
      input: 'tax_number',
      code: 'invalid_vat_number',
    }),

  invalidRegistrations: () =>
    AppError.attribute(
      'tax_registrations',
      'tax_registrations must be null (tax wherever the rules require) or a list of ISO 3166-1 alpha-2 country codes, with EU for the EU One-Stop Shop.',
      'invalid_tax_registrations',
    ),

  /** A store that chooses Stripe Tax without Stripe credentials of the mode. */
  stripeTaxNeedsStripe: (testMode: boolean) =>
    AppError.unprocessable({
      detail: `Stripe Tax needs the store's Stripe account in ${testMode ? 'test' : 'live'} mode: connect it first (the store's stripe attribute or cli stores:payments).`,
      field: 'tax_provider',
      code: 'stripe_tax_requires_stripe',
    }),

  invalidTaxProvider: () =>
    AppError.attribute(
      'tax_provider',
      'tax_provider must be builtin (the built-in rate tables) or stripe (Stripe Tax).',
      'invalid_tax_provider',
    ),

  /**
   * Stripe Tax did not answer (network, timeout, Stripe's 5xx) or refused
   * the calculation: no tax is guessed, nothing is written; the buyer may
   * try again.
   */
  taxServiceUnavailable: () =>
    new AppError(503, {
      detail:
        'The tax could not be calculated: the tax service did not answer. Nothing was charged; try again in a moment.',
      code: 'tax_service_unavailable',
    }),

  /** Stripe Tax cannot place the buyer's address (a postcode that does not exist in the country). */
  taxLocationInvalid: () =>
    AppError.unprocessable({
      detail:
        'The tax service cannot place this billing address: check the country, state and postal code.',
      input: 'zip',
      code: 'invalid_tax_location',
    }),

  /** The sale changed between its tax calculation and the purchase's transaction (a discount ran out meanwhile). */
  taxQuoteChanged: () =>
    AppError.conflict(
      'The price changed while the tax was being calculated. Nothing was charged; submit the purchase again.',
      undefined,
      'tax_quote_changed',
    ),
};
