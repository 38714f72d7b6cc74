import { formatTimestamp } from '../../common/timestamps';
import { ResourceRenderer } from '../../http/json-api/resource';
import type { LicenseKeyView } from './license-key.service';
import { LICENSE_KEY_STATUS_LABELS } from './license-key.state';

/** The key as `key_short` shows it: `XXXX-` and the last 12 characters. */
export function shortKey(key: string): string {
  return `XXXX-${key.slice(-12)}`;
}

/**
 * How a license key renders (18 attributes). Pure, so that the service can
 * hand it to the outbox without depending on the serializer.
 */
export const licenseKeyRenderer = {
  type: 'license-keys',
  relationships: {
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
  },
  id: (key: LicenseKeyView) => String(key.id),
  attributes: (key: LicenseKeyView) => ({
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
  }),
} as const satisfies ResourceRenderer<LicenseKeyView>;
