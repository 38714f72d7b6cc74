import { AppError } from '../../common/app-error';

/**
 * An upload past FILE_MAX_BYTES: 413, and nothing is stored. Refused before
 * its body is read (`unread`), the connection closes after the answer, so
 * the client stops sending the rest.
 */
export function fileTooLarge(maxBytes: number, unread = false): AppError {
  return new AppError(
    413,
    {
      detail: `The file is larger than the limit of ${maxBytes} bytes.`,
      code: 'file_too_large',
    },
    unread ? { Connection: 'close' } : {},
  );
}

export function invalidFileName(pointer = '/data/attributes/name'): AppError {
  return AppError.unprocessable({
    detail:
      'A file name is 1 to 255 characters without slashes or control characters.',
    code: 'invalid_file_name',
    source: { pointer },
  });
}

/** A multipart upload without its `file` part, or with parts in the wrong order. */
export function malformedUpload(detail: string): AppError {
  return new AppError(400, { detail, code: 'malformed_upload' });
}

export function emptyFile(): AppError {
  return AppError.unprocessable({
    detail: 'The file is empty.',
    code: 'empty_file',
  });
}

/** A `Range` header that asks for bytes the file does not have. */
export function rangeNotSatisfiable(size: number): AppError {
  return new AppError(
    416,
    {
      detail: 'The requested range is outside the file.',
      code: 'range_not_satisfiable',
    },
    { 'Content-Range': `bytes */${size}` },
  );
}
