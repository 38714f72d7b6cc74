import { AppError } from '../../common/app-error';

/** The currency module's errors. */
export const CurrencyErrors = {
  /** A sale in a currency the exchange-rate table cannot price in USD. */
  noUsdRate: (currency: string) =>
    AppError.unprocessable({
      detail: `No USD exchange rate is known for ${currency}; set CURRENCY_RATES.`,
      code: 'currency_without_rate',
    }),
};
