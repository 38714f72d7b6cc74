import { Inject, Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { SignedUrls } from '../../common/signed-urls.service';
import { formatTimestamp } from '../../common/timestamps';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ResourceType } from '../../http/json-api/resource';
import { CheckoutView } from './checkout.service';

export const CHECKOUT_PATH = '/checkout/custom';

/** JSON:API `checkouts`: 12 attributes; the id is a UUID. */
@Injectable()
export class CheckoutSerializer implements ResourceType<CheckoutView> {
  readonly type = 'checkouts';
  readonly relationships = {
    store: { kind: 'one', type: 'stores', id: (c: CheckoutView) => c.storeId },
    variant: {
      kind: 'one',
      type: 'variants',
      id: (c: CheckoutView) => c.variantId,
    },
  } as const;
  readonly list = {
    filters: { store_id: filterParsers.id, variant_id: filterParsers.id },
    sorts: ['created_at', 'updated_at'],
    defaultSort: '-createdAt',
  };

  constructor(
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  id(checkout: CheckoutView) {
    return checkout.id;
  }

  /** Signed so the id alone opens nothing; `expires` ends it at expires_at. */
  url(checkout: CheckoutView): string {
    return this.signedUrls.sign(
      this.config.http.checkoutBaseUrl,
      `${CHECKOUT_PATH}/${checkout.id}`,
      checkout.expiresAt ? { expiresAt: checkout.expiresAt } : {},
    );
  }

  attributes(checkout: CheckoutView) {
    return {
      store_id: checkout.storeId,
      variant_id: checkout.variantId,
      custom_price: checkout.customPrice,
      product_options: checkout.productOptions,
      checkout_options: checkout.checkoutOptions,
      checkout_data: checkout.checkoutData,
      preview: checkout.preview,
      expires_at: formatTimestamp(checkout.expiresAt),
      created_at: formatTimestamp(checkout.createdAt),
      updated_at: formatTimestamp(checkout.updatedAt),
      test_mode: checkout.testMode,
      url: this.url(checkout),
    };
  }
}
