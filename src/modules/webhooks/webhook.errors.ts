import { AppError } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The webhooks module's errors. */
export const WebhookErrors = {
  ...CommonErrors,

  storeNotFound: () => AppError.relatedNotFound('store'),

  /** A URL refused by the address rules (scheme, private or reserved host). */
  urlRefused: (detail: string) =>
    AppError.attribute('url', detail, 'webhook_url_refused'),
};
