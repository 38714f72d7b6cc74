import { AppError, ErrorDetail } from '../../common/app-error';

/** The invoice module's errors (generate-invoice and invoice downloads). */
export const InvoiceErrors = {
  unknownParameter: (name: string) =>
    new AppError(400, {
      detail: `Unknown parameter "${name}".`,
      parameter: name,
      code: 'unknown_parameter',
    }),

  repeatedParameter: (name: string) =>
    new AppError(400, {
      detail: `The parameter ${name} may be given only once.`,
      parameter: name,
      code: 'repeated_parameter',
    }),

  /** One error per invalid invoice field given in the query. */
  invalidFields: (errors: { parameter: string; detail: string }[]) =>
    AppError.unprocessable(
      errors.map((error): ErrorDetail => ({
        ...error,
        code: 'invalid_parameter',
      })),
    ),

  queryAndBodyDisagree: (name: string) =>
    new AppError(400, {
      detail: `The ${name} is given in the query and the body with different values.`,
      parameter: name,
      code: 'query_and_body_disagree',
    }),

  invoiceGone: () =>
    AppError.notFound('This invoice no longer exists.', 'invoice_not_found'),

  invalidLink: () =>
    AppError.badRequest('This link is invalid.', undefined, 'invalid_link'),

  /** A type of record that has no invoices: the route does not exist. */
  noInvoiceSource: () =>
    AppError.notFound('No route matches this path.', 'route_not_found'),
};
