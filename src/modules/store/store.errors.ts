import { AppError } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The store module's errors. */
export const StoreErrors = {
  ...CommonErrors,

  invalidCurrency: () =>
    AppError.attribute(
      'currency',
      'The currency must be an ISO 4217 code such as USD.',
      'invalid_currency',
    ),

  invalidCountry: () =>
    AppError.attribute(
      'country',
      'The country must be an ISO 3166-1 alpha-2 code such as US.',
      'invalid_country',
    ),

  invalidSlug: () =>
    AppError.attribute(
      'slug',
      'The slug may contain lowercase letters, digits and single dashes.',
      'invalid_slug',
    ),

  invalidDomain: () =>
    AppError.attribute(
      'domain',
      'The domain must be a host name such as shop.example.com.',
      'invalid_domain',
    ),

  /** A currency the exchange-rate table cannot price in USD. */
  currencyWithoutRate: (currency: string) =>
    AppError.attribute(
      'currency',
      `No USD exchange rate is known for ${currency}, so a store cannot sell in it; an operator can add one with CURRENCY_RATES.`,
      'currency_without_rate',
    ),

  invalidLegalAddress: () =>
    AppError.attribute(
      'legal_address',
      'legal_address must be null or an object with lines (up to 3 street lines), city, state, postcode and country (ISO 3166-1 alpha-2, required).',
      'invalid_legal_address',
    ),

  invalidTaxNumbers: () =>
    AppError.attribute(
      'tax_numbers',
      'tax_numbers must be null or an object from ISO 3166-1 alpha-2 country codes to tax registration numbers, such as {"FR": "FR40303265045"}.',
      'invalid_tax_numbers',
    ),

  /** An EU or UK VAT number failing the offline check, or a malformed other number. */
  invalidTaxNumber: (country: string) =>
    AppError.attribute(
      'tax_numbers',
      `The ${country} tax number is not valid (an EU or UK VAT number starts with its country prefix, such as ${country === 'GR' ? 'EL' : country}, and passes the check digits).`,
      'invalid_tax_number',
    ),
};
