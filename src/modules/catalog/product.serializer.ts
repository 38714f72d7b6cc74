import { Inject, Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatMoney } from '../../common/money';
import { formatTimestamp } from '../../common/timestamps';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ResourceType } from '../../http/json-api/resource';
import { formatStatus } from './catalog-format';
import { ProductView } from './product.service';

/** JSON:API `products`: 19 attributes (reference section 4). */
@Injectable()
export class ProductSerializer implements ResourceType<ProductView> {
  readonly type = 'products';
  readonly relationships = {
    store: {
      kind: 'one',
      type: 'stores',
      id: (product: ProductView) => product.storeId,
    },
    variants: { kind: 'many', type: 'variants', filter: 'product_id' },
  } as const;
  readonly list = {
    filters: { store_id: filterParsers.id },
    sorts: ['name', 'created_at', 'updated_at'],
    defaultSort: 'name',
  };
  private readonly checkoutBaseUrl: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.checkoutBaseUrl = config.http.checkoutBaseUrl;
  }

  id(product: ProductView) {
    return String(product.id);
  }

  attributes(product: ProductView) {
    const { price, fromPrice, toPrice, buyNowVariantUuid } = product.pricing;
    const money = (cents: number | null) =>
      cents === null ? null : formatMoney(cents, product.currency);
    return {
      store_id: product.storeId,
      name: product.name,
      slug: product.slug,
      description: product.description,
      status: product.status,
      status_formatted: formatStatus(product.status),
      thumb_url: product.thumbUrl,
      large_thumb_url: product.largeThumbUrl,
      price,
      price_formatted: money(price),
      from_price: fromPrice,
      to_price: toPrice,
      from_price_formatted: money(fromPrice),
      to_price_formatted: money(toPrice),
      pay_what_you_want: product.payWhatYouWant,
      buy_now_url: buyNowVariantUuid
        ? `${this.checkoutBaseUrl}/checkout/buy/${buyNowVariantUuid}`
        : null,
      created_at: formatTimestamp(product.createdAt),
      updated_at: formatTimestamp(product.updatedAt),
      test_mode: product.testMode,
    };
  }
}
