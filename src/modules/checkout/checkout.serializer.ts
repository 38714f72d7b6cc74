import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import {
  filterParsers,
  FilterValue,
  ListQuery,
  Page,
  pageOrNothing,
} from '../../common/list-query';
import { Principal } from '../../common/principal';
import { SignedUrls } from '../../common/signed-urls.service';
import { formatTimestamp } from '../../common/timestamps';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { JsonApi } from '../../http/json-api/json-api.service';
import { ResourceType } from '../../http/json-api/resource';
import { CheckoutService, CheckoutView } from './checkout.service';

export const CHECKOUT_PATH = '/checkout/custom';

/** JSON:API `checkouts`: 12 attributes; the id is a UUID. */
@Injectable()
export class CheckoutSerializer
  implements ResourceType<CheckoutView>, OnModuleInit
{
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
    private readonly checkouts: CheckoutService,
    private readonly jsonApi: JsonApi,
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

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

  // Checkout ids are UUIDs, not integers: the service checks them.
  findOne(principal: Principal, id: string) {
    return this.checkouts.findOne(principal, id);
  }

  findMany(principal: Principal, ids: string[]) {
    return this.checkouts.findMany(principal, ids);
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<CheckoutView>> {
    return pageOrNothing(query, () =>
      this.checkouts.findPage(principal, query),
    );
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    if (filter !== 'store_id' && filter !== 'variant_id')
      throw new Error(`checkouts cannot be listed by ${filter}`);
    return this.checkouts.findByFilter(principal, filter, values);
  }
}
