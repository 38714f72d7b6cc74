import { AppError } from '../../common/app-error';

export function downloadLimitReached(limit: number): AppError {
  return new AppError(403, {
    detail: `This purchase has used all of its ${limit} downloads. Contact the merchant for more.`,
    code: 'download_limit_reached',
  });
}

export function orderRefunded(): AppError {
  return new AppError(403, {
    detail:
      'This order was refunded, so its downloads are no longer available.',
    code: 'order_refunded',
  });
}

export function orderNotPaid(): AppError {
  return new AppError(403, {
    detail: 'This order is not paid, so its files cannot be downloaded.',
    code: 'order_not_paid',
  });
}

export function fileUnavailable(): AppError {
  return new AppError(404, {
    detail: 'This file is no longer available.',
    code: 'file_unavailable',
  });
}
