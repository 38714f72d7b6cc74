import { AppError } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The customer module's errors. */
export const CustomerErrors = {
  ...CommonErrors,

  textTooLong: (field: string, max: number) =>
    AppError.attribute(
      field,
      `The ${field} may be at most ${max} characters.`,
      'text_too_long',
    ),

  invalidEmail: () =>
    AppError.attribute(
      'email',
      'The email must be a valid address.',
      'invalid_email',
    ),

  invalidCountry: () =>
    AppError.attribute(
      'country',
      'The country must be an ISO 3166-1 alpha-2 code in capitals, such as US.',
      'invalid_country',
    ),

  /** An EU or UK VAT number whose format or check digits are wrong for the country. */
  invalidTaxNumber: (country: string) =>
    AppError.attribute(
      'tax_number',
      `The tax number is not a valid VAT number for ${country}.`,
      'invalid_tax_number',
    ),

  countryRequiredForTaxNumber: () =>
    AppError.attribute(
      'country',
      'A tax number needs the billing country it was issued in.',
      'country_required',
    ),

  duplicateEmail: () =>
    AppError.attribute(
      'email',
      'A customer with this email already exists in this store.',
      'customer_email_taken',
    ),

  storeNotFound: () => AppError.relatedNotFound('store'),

  onlyArchive: () =>
    AppError.attribute(
      'status',
      'The status can only be set to archived.',
      'customer_status_not_archived',
    ),

  portalNotFound: () =>
    AppError.notFound('This customer does not exist.', 'customer_not_found'),
};
