import { AppError, ErrorDetail, genericCode } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The catalog's errors: products, variants, prices and files. */
export const CatalogErrors = {
  ...CommonErrors,

  /** A variant's `min_quantity` above its `max_quantity`. */
  quantityLimitsInverted: (min: number, max: number) =>
    AppError.attribute(
      'min_quantity',
      `The minimum quantity (${min}) cannot exceed the maximum quantity (${max}).`,
      'quantity_limits_inverted',
    ),

  /** Every broken rule of a price at once, one error per attribute. */
  invalidPrice: (errors: { field: string; detail: string }[]) =>
    AppError.unprocessable(
      errors.map((error): ErrorDetail => ({
        ...error,
        code: 'invalid_attribute',
      })),
    ),

  productNotFound: () => AppError.relatedNotFound('product'),
  variantNotFound: () => AppError.relatedNotFound('variant'),
  storeNotFound: () => AppError.relatedNotFound('store'),

  defaultVariantStaysPending: () =>
    AppError.attribute(
      'status',
      'The only variant of a product is its default and stays pending; add another variant to offer choices.',
      'default_variant_pending',
    ),

  /** A buyer-facing name: no path separators or control characters (they end up in headers). */
  invalidFileName: () =>
    AppError.attribute(
      'name',
      'A file name is 1 to 255 characters without slashes or control characters.',
      'invalid_file_name',
    ),

  /**
   * An upload past FILE_MAX_BYTES: 413, and nothing is stored. Refused before
   * its body is read (`unread`), the connection closes after the answer, so
   * the client stops sending the rest.
   */
  fileTooLarge: (maxBytes: number, unread = false) =>
    new AppError(
      413,
      {
        detail: `The file is larger than the limit of ${maxBytes} bytes.`,
        code: 'file_too_large',
      },
      unread ? { Connection: 'close' } : {},
    ),

  /** A multipart upload without its `file` part, or with parts in the wrong order. */
  malformedUpload: (detail: string) =>
    new AppError(400, { detail, code: 'malformed_upload' }),

  /** tus: Upload-Offset differs from the server's offset (HEAD gives it). */
  uploadOffsetMismatch: (detail: string) =>
    new AppError(409, { detail, code: 'upload_offset_mismatch' }),

  /** tus: the upload is past its expiration. */
  uploadExpired: () =>
    new AppError(410, {
      detail: 'The upload expired; create a new one.',
      code: 'upload_expired',
    }),

  /** tus: another refusal of the tus server, with its status and the generic code. */
  uploadRefused: (status: number, detail: string) =>
    new AppError(status, { detail, code: genericCode(status) }),

  /** tus: a request without `Tus-Resumable: 1.0.0`. */
  tusResumableRequired: () =>
    new AppError(412, {
      detail: 'Send Tus-Resumable: 1.0.0 (tus protocol 1.0.0).',
      header: 'Tus-Resumable',
      code: 'tus_resumable_required',
    }),

  emptyFile: () =>
    AppError.unprocessable({
      detail: 'The file is empty.',
      code: 'empty_file',
    }),

  /** A `Range` header that asks for bytes the file does not have. */
  rangeNotSatisfiable: (size: number) =>
    new AppError(
      416,
      {
        detail: 'The requested range is outside the file.',
        code: 'range_not_satisfiable',
      },
      { 'Content-Range': `bytes */${size}` },
    ),
};
