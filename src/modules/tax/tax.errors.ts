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
};
