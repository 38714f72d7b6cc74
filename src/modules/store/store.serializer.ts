import { Inject, Injectable } from '@nestjs/common';
import { formatTimestamp } from '../../common/timestamps';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ResourceType } from '../../http/json-api/resource';
import { StoreView } from './store-sales';

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });

/** JSON:API `stores`: the spec's 15 attributes and Zest's `stripe` and seller identity (`legal_name`, `legal_address`, `tax_numbers`), no `test_mode` (stores exist in both modes). */
@Injectable()
export class StoreSerializer implements ResourceType<StoreView> {
  readonly type = 'stores';
  readonly relationships = {
    products: { kind: 'many', type: 'products', filter: 'store_id' },
    orders: { kind: 'many', type: 'orders', filter: 'store_id' },
    subscriptions: { kind: 'many', type: 'subscriptions', filter: 'store_id' },
    discounts: { kind: 'many', type: 'discounts', filter: 'store_id' },
    'license-keys': { kind: 'many', type: 'license-keys', filter: 'store_id' },
    webhooks: { kind: 'many', type: 'webhooks', filter: 'store_id' },
  } as const;
  readonly list = {
    filters: {},
    sorts: ['name', 'created_at', 'updated_at'],
    defaultSort: 'name',
  };
  private readonly checkoutHost: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.checkoutHost = new URL(config.http.checkoutBaseUrl).host;
  }

  id(store: StoreView) {
    return String(store.id);
  }

  attributes(store: StoreView) {
    const domain = store.domain ?? this.checkoutHost;
    return {
      name: store.name,
      slug: store.slug,
      domain,
      url: store.domain
        ? `https://${store.domain}`
        : this.config.http.checkoutBaseUrl,
      avatar_url: store.avatarUrl ?? '',
      plan: store.plan,
      country: store.country,
      country_nicename: COUNTRY_NAMES.of(store.country) ?? store.country,
      currency: store.currency,
      total_sales: store.sales.totalSales,
      total_revenue: store.sales.totalRevenue,
      thirty_day_sales: store.sales.thirtyDaySales,
      thirty_day_revenue: store.sales.thirtyDayRevenue,
      stripe: store.stripe,
      legal_name: store.legalName,
      legal_address: store.legalAddress,
      tax_numbers: store.taxNumbers,
      created_at: formatTimestamp(store.createdAt),
      updated_at: formatTimestamp(store.updatedAt),
    };
  }
}
