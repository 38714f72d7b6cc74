import { AppError } from '../../common/app-error';

/** Downloads of purchased files (signed links from receipts and portals). */
export const DeliveryErrors = {
  downloadLimitReached: (limit: number) =>
    new AppError(403, {
      detail: `This purchase has used all of its ${limit} downloads. Contact the merchant for more.`,
      code: 'download_limit_reached',
    }),

  orderRefunded: () =>
    new AppError(403, {
      detail:
        'This order was refunded, so its downloads are no longer available.',
      code: 'order_refunded',
    }),

  orderNotPaid: () =>
    new AppError(403, {
      detail: 'This order is not paid, so its files cannot be downloaded.',
      code: 'order_not_paid',
    }),

  fileUnavailable: () =>
    new AppError(404, {
      detail: 'This file is no longer available.',
      code: 'file_unavailable',
    }),
};
