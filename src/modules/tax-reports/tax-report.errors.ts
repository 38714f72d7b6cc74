import { AppError } from '../../common/app-error';

/** The tax reports' errors (`GET /v1/tax-reports`, `cli tax:report`). */
export const TaxReportErrors = {
  unknownParameter: (name: string) =>
    new AppError(400, {
      detail: `Unknown parameter "${name}": a tax report takes filter[store_id] and filter[period].`,
      parameter: name,
      code: 'unknown_parameter',
    }),

  storeRequired: () =>
    AppError.unprocessable({
      detail: 'A tax report is for one store: give filter[store_id].',
      parameter: 'filter[store_id]',
      code: 'tax_report_store_required',
    }),

  /** No such store among the caller's (or not an id at all): as a missing store. */
  storeNotFound: () =>
    new AppError(404, {
      detail: 'The store does not exist.',
      parameter: 'filter[store_id]',
      code: 'tax_report_store_not_found',
    }),

  periodRequired: () =>
    AppError.unprocessable({
      detail:
        'Give filter[period]: a quarter (2026-Q3), a month (2026-07) or a year (2026).',
      parameter: 'filter[period]',
      code: 'tax_report_period_required',
    }),

  periodInvalid: (given: string) =>
    AppError.unprocessable({
      detail: `"${given.slice(0, 40)}" is not a period: give a quarter (2026-Q3), a month (2026-07) or a year (2026), between 2000 and 9999.`,
      parameter: 'filter[period]',
      code: 'tax_report_period_invalid',
    }),
};
