import { Inject, Injectable } from '@nestjs/common';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

export const RECEIPT_PATH = '/my-orders';

/** The buyer's receipt page of an order: signed, and valid as long as the order exists. */
@Injectable()
export class OrderReceipts {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly signedUrls: SignedUrls,
  ) {}

  url(identifier: string): string {
    return this.signedUrls.sign(
      this.config.http.checkoutBaseUrl,
      `${RECEIPT_PATH}/${identifier}`,
    );
  }
}
