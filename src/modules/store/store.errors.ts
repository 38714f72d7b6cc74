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
};
