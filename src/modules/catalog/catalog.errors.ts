import { AppError, ErrorDetail } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The catalog's errors: products, variants, prices and files. */
export const CatalogErrors = {
  ...CommonErrors,

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

  invalidFileName: () =>
    AppError.unprocessable({
      detail: 'A file name is 1 to 255 characters without slashes.',
      code: 'invalid_file_name',
    }),

  fileTooLarge: () =>
    AppError.unprocessable({
      detail: 'The file is larger than 256 MiB.',
      code: 'file_too_large',
    }),
};
