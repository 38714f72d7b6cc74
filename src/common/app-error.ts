/** Where in the request an error points, as JSON:API `source` says. */
export type ErrorSource =
  { pointer: string } | { parameter: string } | { header: string };

export interface ErrorDetail {
  detail: string;
  source?: ErrorSource;
  /** A stable, machine-readable name for the error (JSON:API `code`). */
  code?: string;
}

/**
 * A failure the client can act on. Services throw these; only the global
 * exception filter turns them into error responses.
 */
export class AppError extends Error {
  readonly errors: ErrorDetail[];

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
    this.errors = list;
  }

  static badRequest(detail: string, source?: ErrorSource) {
    return new AppError(400, { detail, source });
  }

  static unauthorized(detail: string) {
    return new AppError(401, detail);
  }

  static forbidden(detail: string) {
    return new AppError(403, detail);
  }

  static notFound(detail = 'The requested resource does not exist.') {
    return new AppError(404, detail);
  }

  static conflict(detail: string, source?: ErrorSource) {
    return new AppError(409, { detail, source });
  }

  /** One error per invalid field. */
  static unprocessable(errors: string | ErrorDetail | ErrorDetail[]) {
    return new AppError(422, errors);
  }

  static attribute(name: string, detail: string) {
    return AppError.unprocessable({
      detail,
      source: { pointer: `/data/attributes/${name}` },
    });
  }

  /** A relationship that points at no record visible to the caller. */
  static relatedNotFound(relationship: string) {
    return new AppError(404, {
      detail: 'The related resource does not exist.',
      source: { pointer: `/data/relationships/${relationship}` },
    });
  }
}
