import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import type { LicenseKeyView } from './license-key.service';
import {
  LICENSE_KEY_STATUS_LABELS,
  LICENSE_KEY_STATUSES,
} from './license-key.state';

/** The key as `key_short` shows it: `XXXX-` and the last 12 characters. */
export function shortKey(key: string): string {
  return `XXXX-${key.slice(-12)}`;
}

/** JSON:API `license-keys`: 18 attributes. */
@Injectable()
export class LicenseKeySerializer implements ResourceType<LicenseKeyView> {
  readonly type = 'license-keys';
  readonly relationships = {
    store: {
      kind: 'one',
      type: 'stores',
      id: (k: LicenseKeyView) => k.storeId,
    },
    customer: {
      kind: 'one',
      type: 'customers',
      id: (k: LicenseKeyView) => k.customerId,
    },
    order: {
      kind: 'one',
      type: 'orders',
      id: (k: LicenseKeyView) => k.orderId,
    },
    'order-item': {
      kind: 'one',
      type: 'order-items',
      id: (k: LicenseKeyView) => k.orderItemId,
    },
    product: {
      kind: 'one',
      type: 'products',
      id: (k: LicenseKeyView) => k.productId,
    },
    'license-key-instances': {
      kind: 'many',
      type: 'license-key-instances',
      filter: 'license_key_id',
    },
  } as const;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      order_id: filterParsers.id,
      order_item_id: filterParsers.id,
      product_id: filterParsers.id,
      status: filterParsers.oneOf(...LICENSE_KEY_STATUSES),
    },
    sorts: ['id'],
    defaultSort: 'id',
  };

  id(key: LicenseKeyView) {
    return String(key.id);
  }

  attributes(key: LicenseKeyView) {
    return {
      store_id: key.storeId,
      customer_id: key.customerId,
      order_id: key.orderId,
      order_item_id: key.orderItemId,
      product_id: key.productId,
      user_name: key.userName,
      user_email: key.userEmail,
      key: key.key,
      key_short: shortKey(key.key),
      activation_limit: key.activationLimit,
      instances_count: key.instancesCount,
      disabled: key.disabled,
      status: key.status,
      status_formatted: LICENSE_KEY_STATUS_LABELS[key.status],
      expires_at: formatTimestamp(key.expiresAt),
      created_at: formatTimestamp(key.createdAt),
      updated_at: formatTimestamp(key.updatedAt),
      test_mode: key.testMode,
    };
  }
}
