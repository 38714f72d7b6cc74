/**
 * A refusal on a plain-JSON route that carries its whole body (sent as is by
 * the exception filter, see http/errors/plain-json-errors.ts).
 */
export class PlainJsonError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.error === 'string' ? body.error : 'Request refused.');
  }
}
