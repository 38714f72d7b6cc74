import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { CustomerStatus } from './customer.entity';
import { CustomerView } from './customer.service';

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });
// Revenue and MRR are USD by definition (spec 2.5), whatever the store's currency.
const USD = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
});

const STATUS_LABELS: Record<CustomerStatus, string> = {
  subscribed: 'Subscribed',
  unsubscribed: 'Unsubscribed',
  archived: 'Archived',
  requires_verification: 'Requires Verification',
  invalid_email: 'Invalid Email',
  bounced: 'Bounced',
};

export const formatUsd = (cents: number) => USD.format(cents / 100);

/** JSON:API `customers`: the reference's 17 attributes, in its order. */
@Injectable()
export class CustomerSerializer implements ResourceType<CustomerView> {
  readonly type = 'customers';
  readonly relationships = {
    store: {
      kind: 'one',
      type: 'stores',
      id: (customer: CustomerView) => customer.storeId,
    },
    orders: { kind: 'many', type: 'orders', filter: 'customer_id' },
    subscriptions: {
      kind: 'many',
      type: 'subscriptions',
      filter: 'customer_id',
    },
    'license-keys': {
      kind: 'many',
      type: 'license-keys',
      filter: 'customer_id',
    },
  } as const;
  readonly list = {
    filters: { store_id: filterParsers.id, email: filterParsers.email },
    sorts: ['created_at', 'updated_at'],
    defaultSort: '-createdAt',
  };

  id(customer: CustomerView) {
    return String(customer.id);
  }

  attributes(customer: CustomerView) {
    return {
      store_id: customer.storeId,
      name: customer.name,
      email: customer.email,
      status: customer.status,
      city: customer.city,
      region: customer.region,
      country: customer.country,
      total_revenue_currency: customer.figures.totalRevenueCurrency,
      mrr: customer.figures.mrr,
      status_formatted: STATUS_LABELS[customer.status],
      country_formatted: customer.country
        ? (COUNTRY_NAMES.of(customer.country) ?? customer.country)
        : null,
      total_revenue_currency_formatted: formatUsd(
        customer.figures.totalRevenueCurrency,
      ),
      mrr_formatted: formatUsd(customer.figures.mrr),
      urls: { customer_portal: customer.portalUrl },
      created_at: formatTimestamp(customer.createdAt),
      updated_at: formatTimestamp(customer.updatedAt),
      test_mode: customer.testMode,
      address: customer.address,
      zip: customer.zip,
      tax_number: customer.taxNumber,
    };
  }
}
