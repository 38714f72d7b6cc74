import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyService } from '../../../src/modules/account/api-key.service';
import { buySubscription } from '../../support/billing';
import { buy, buyNowUrl, pathOf } from '../../support/commerce';
import {
  createCustomer,
  createMerchant,
  createPrice,
  createPricedProduct,
  createProduct,
  createVariant,
  Merchant,
  postResource,
} from '../../support/factories';
import { TestApp } from '../../support/test-app';

/** Everything the hostile-input test aims at: real ids, keys and signed links. */
export interface Fixture {
  merchant: Merchant;
  /** A second user: its key must see none of the merchant's records. */
  other: Merchant;
  revokedKey: string;
  /** Every id of every table, as strings. */
  ids: string[];
  /** The ids of each table, oldest first (the merchant's records come first). */
  byTable: Record<string, string[]>;
  /** uuid / identifier / license-key columns. */
  tokens: string[];
  /** Signed links the API handed out (path and query). */
  signedPaths: string[];
  licenseKeys: string[];
  instanceIds: string[];
}

const ID_TABLES = [
  'users',
  'stores',
  'products',
  'variants',
  'prices',
  'customers',
  'orders',
  'order_items',
  'checkouts',
  'discounts',
  'discount_redemptions',
  'webhooks',
  'webhook_deliveries',
  'license_keys',
  'license_key_instances',
  'subscriptions',
  'subscription_items',
  'usage_records',
  'subscription_invoices',
];

/**
 * One store stocked over the API and the hosted checkout: a one-time product
 * bought with a discount, a usage-based subscription with usage, license
 * keys with an instance, a checkout, a webhook. Built through the API and the
 * services, as a merchant would.
 */
export async function buildFixture(t: TestApp): Promise<Fixture> {
  const merchant = await createMerchant(t.app, ['Hostile Store']);
  const other = await createMerchant(t.app, ['Other Store']);
  const keys = t.app.get(ApiKeyService);
  const revoked = await keys.create(merchant.userId, 'test');
  await keys.revoke(revoked.apiKey.id);
  const key = merchant.testKey;
  const store = merchant.stores[0];
  const signedPaths: string[] = [];

  const { product, variantId } = await createPricedProduct(
    t.baseUrl,
    key,
    store.id,
  );
  await postResource(
    t.baseUrl,
    key,
    'discounts',
    { name: 'Ten', code: 'TENOFF', amount: 10, amount_type: 'percent' },
    { store: { type: 'stores', id: store.id } },
  );
  const url = await buyNowUrl(t.baseUrl, key, product.id);
  const purchase = await buy(t.baseUrl, url, { discount_code: 'TENOFF' });
  if (purchase.status !== 201)
    throw new Error(`purchase: ${JSON.stringify(purchase.body)}`);
  const order = (
    purchase.body as {
      data: { id: string; attributes: { urls: Record<string, string> } };
    }
  ).data;
  signedPaths.push(pathOf(order.attributes.urls.receipt));
  const checkout = await postResource(
    t.baseUrl,
    key,
    'checkouts',
    {},
    {
      store: { type: 'stores', id: store.id },
      variant: { type: 'variants', id: variantId },
    },
  );
  signedPaths.push(pathOf(checkout.attributes.url as string));
  signedPaths.push(pathOf(url));
  const invoice = await request(t.baseUrl)
    .post(`/v1/orders/${order.id}/generate-invoice?name=Ada`)
    .set('Authorization', `Bearer ${key}`);
  const download = (
    invoice.body as { meta?: { urls?: { download_invoice?: string } } }
  ).meta?.urls?.download_invoice;
  if (download) signedPaths.push(pathOf(download));

  const { subscription } = await buySubscription(t.baseUrl, key, store.id, {
    unit_price: null,
    unit_price_decimal: '2.5',
    usage_aggregation: 'sum',
  });
  const urls = subscription.attributes.urls as Record<string, string | null>;
  for (const link of Object.values(urls))
    if (link) signedPaths.push(pathOf(link));
  const item = subscription.attributes.first_subscription_item as {
    id: number;
  };
  await postResource(
    t.baseUrl,
    key,
    'usage-records',
    { quantity: 3 },
    { 'subscription-item': { type: 'subscription-items', id: item.id } },
  );
  const customer = await createCustomer(t.app, merchant);
  const portal = await request(t.baseUrl)
    .get(`/v1/customers/${customer.id}`)
    .set('Authorization', `Bearer ${key}`);
  const portalUrl = (
    portal.body as { data?: { attributes?: { urls?: Record<string, string> } } }
  ).data?.attributes?.urls?.customer_portal;
  if (portalUrl) signedPaths.push(pathOf(portalUrl));

  // License keys from a real purchase (quantity 2) of a variant that issues them.
  const licensed = await createProduct(t.baseUrl, key, store.id);
  const licensedVariant = await createVariant(t.baseUrl, key, licensed.id, {
    status: 'published',
    has_license_keys: true,
    license_activation_limit: 2,
    is_license_limit_unlimited: false,
    is_license_length_unlimited: true,
  });
  await createPrice(t.baseUrl, key, licensedVariant.id);
  const licensedUrl = await buyNowUrl(t.baseUrl, key, licensed.id);
  const licensedOrder = await buy(t.baseUrl, licensedUrl, {
    variant_id: licensedVariant.id,
    quantity: 2,
  });
  if (licensedOrder.status !== 201)
    throw new Error(`license purchase: ${JSON.stringify(licensedOrder.body)}`);
  const keyList = await request(t.baseUrl)
    .get(
      `/v1/license-keys?filter[order_id]=${(licensedOrder.body as { data: { id: string } }).data.id}`,
    )
    .set('Authorization', `Bearer ${key}`);
  const licenses = (
    keyList.body as { data: { attributes: { key: string } }[] }
  ).data.map((resource) => ({ key: resource.attributes.key }));
  const activated = await request(t.baseUrl)
    .post('/v1/licenses/activate')
    .send({ license_key: licenses[0].key, instance_name: 'laptop' });
  const instanceId = (activated.body as { instance?: { id: string } }).instance
    ?.id;
  if (licenses.length !== 2 || !instanceId)
    throw new Error(`license fixture: ${JSON.stringify(activated.body)}`);
  await postResource(
    t.baseUrl,
    key,
    'webhooks',
    {
      url: 'http://127.0.0.1:9/zest',
      events: ['order_created'],
      secret: 'fixture-webhook-secret',
    },
    { store: { type: 'stores', id: store.id } },
  );

  const db = t.app.get(DataSource);
  const ids: string[] = [];
  const byTable: Record<string, string[]> = {};
  for (const table of ID_TABLES) {
    const rows: { id: string | number }[] = await db.query(
      `SELECT id FROM ${table} ORDER BY id`,
    );
    byTable[table] = rows.map((row) => String(row.id));
    ids.push(...byTable[table]);
  }
  const tokens: string[] = [];
  for (const [table, column] of [
    ['variants', 'uuid'],
    ['checkouts', 'id'],
    ['orders', 'identifier'],
    ['license_keys', 'key'],
    ['license_key_instances', 'identifier'],
  ]) {
    const rows: { v: string }[] = await db
      .query(`SELECT ${column}::text AS v FROM ${table}`)
      .catch(() => []);
    for (const row of rows) tokens.push(row.v);
  }
  return {
    merchant,
    other,
    revokedKey: revoked.key,
    ids: [...new Set(ids)],
    byTable,
    tokens,
    signedPaths,
    licenseKeys: licenses.map((license) => license.key),
    instanceIds: instanceId ? [instanceId] : [],
  };
}
