/** Where in the request an error points, as JSON:API `source` says. */
export type ErrorSource =
  { pointer: string } | { parameter: string } | { header: string };

/**
 * One error. Services say where it lies in domain terms, at most one of
 * `field`, `relationship`, `input`, `parameter`, `header`; the exception
 * filter turns that into the JSON:API `source` (see `sourceOf`). Only the
 * HTTP layer, which knows the document's shape, sets `source` itself.
 */
export interface ErrorDetail {
  detail: string;
  /**
   * A stable, machine-readable name for the error (JSON:API `code`),
   * snake_case. Left out, the status's generic code applies
   * (`GENERIC_CODES`); modules name theirs in `<module>.errors.ts`.
   */
  code?: string;
  /** An attribute of the resource written; nested members joined by `/`. */
  field?: string;
  /** A relationship of the resource written. */
  relationship?: string;
  /** A member of a plain JSON request body (the hosted checkout's purchase); nested members joined by `/`. */
  input?: string;
  /** A query parameter. */
  parameter?: string;
  /** A request header. */
  header?: string;
  /** The JSON:API source as is: for the HTTP layer's own document checks. */
  source?: ErrorSource;
}

/** An error as the exception filter gets it: always with its code. */
export type CodedErrorDetail = ErrorDetail & { code: string };

/**
 * The codes of errors that are the same in every module, by status: what an
 * error without a code of its own carries. Module-specific codes live in the
 * modules' `*.errors.ts`.
 */
export const GENERIC_CODES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'body_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
};

/** The generic code of a status (`GENERIC_CODES`), or `error` for one without. */
export function genericCode(status: number): string {
  return GENERIC_CODES[status] ?? (status >= 500 ? 'internal_error' : 'error');
}

/** The JSON:API source of an error's domain location (the filter's translation). */
export function sourceOf(error: ErrorDetail): ErrorSource | undefined {
  if (error.source) return error.source;
  if (error.field !== undefined)
    return { pointer: `/data/attributes/${error.field}` };
  if (error.relationship !== undefined)
    return { pointer: `/data/relationships/${error.relationship}` };
  if (error.input !== undefined) return { pointer: `/${error.input}` };
  if (error.parameter !== undefined) return { parameter: error.parameter };
  if (error.header !== undefined) return { header: error.header };
  return undefined;
}

/**
 * A failure the client can act on. Services throw these, built by their
 * module's `*.errors.ts` factories; only the global exception filter turns
 * them into error responses. Every error carries a code.
 */
export class AppError extends Error {
  readonly errors: CodedErrorDetail[];

  constructor(
    readonly status: number,
    errors: string | ErrorDetail | ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    const list =
      typeof errors === 'string'
        ? [{ detail: errors }]
        : Array.isArray(errors)
          ? errors
          : [errors];
    super(list.map((e) => e.detail).join('; '));
    this.errors = list.map((e) => ({
      ...e,
      code: e.code ?? genericCode(status),
    }));
  }

  /** The distinct codes of its errors, in order. */
  get codes(): string[] {
    return [...new Set(this.errors.map((e) => e.code))];
  }

  static badRequest(detail: string, source?: ErrorSource, code?: string) {
    return new AppError(400, { detail, source, code });
  }

  static unauthorized(detail: string, code?: string) {
    return new AppError(401, { detail, code });
  }

  static forbidden(detail: string, code?: string) {
    return new AppError(403, { detail, code });
  }

  static notFound(
    detail = 'The requested resource does not exist.',
    code?: string,
  ) {
    return new AppError(404, { detail, code });
  }

  static conflict(detail: string, source?: ErrorSource, code?: string) {
    return new AppError(409, { detail, source, code });
  }

  /** One error per invalid field. */
  static unprocessable(errors: string | ErrorDetail | ErrorDetail[]) {
    return new AppError(422, errors);
  }

  /** A 422 at an attribute, `invalid_attribute` unless a code is given. */
  static attribute(name: string, detail: string, code = 'invalid_attribute') {
    return AppError.unprocessable({ detail, field: name, code });
  }

  /**
   * A relationship that points at no record visible to the caller, with the
   * code `<relationship>_not_found` (`variant_not_found`) unless one is given.
   */
  static relatedNotFound(relationship: string, code?: string) {
    return new AppError(404, {
      detail: 'The related resource does not exist.',
      relationship,
      code: code ?? `${relationship.replaceAll('-', '_')}_not_found`,
    });
  }
}
