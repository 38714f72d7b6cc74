type Params = Record<string, unknown>;

/** A Stripe API error, in Stripe's shape: `{"error": {type, code, message, param, …}}`. */
export class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

export const invalid = (message: string, extra: Params = {}) =>
  new StripeError(400, { type: 'invalid_request_error', message, ...extra });
export const missing = (param: string) =>
  invalid(`Missing required param: ${param}.`, {
    code: 'parameter_missing',
    param,
  });
export const noSuch = (kind: string, id: string, param = 'id') =>
  new StripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${id}'`,
    param,
  });
