import { genericCode } from './app-error';

/**
 * A refusal on a plain-JSON route that carries its whole body (sent as is by
 * the exception filter, see http/errors/plain-json-errors.ts). Its `code` is
 * not in the body (the reference's shape has no place for it); the access
 * log records it.
 */
export class PlainJsonError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly code: string = genericCode(status),
  ) {
    super(typeof body.error === 'string' ? body.error : 'Request refused.');
  }
}
