import { randomUUID } from 'node:crypto';
import { Global, Module } from '@nestjs/common';
import {
  LicenseKeyService,
  LicenseKeyView,
} from '../../src/modules/licensing/license-key.service';
import { LicenseLengthUnit } from '../../src/modules/licensing/license-key.state';
import { LIVE_PAYMENT_GATEWAY } from '../../src/modules/payment/payment-gateway';
import { TestPaymentGateway } from '../../src/modules/payment/test-payment-gateway';
import { Store } from '../../src/modules/store/store.entity';
import { buy, buyNowUrl } from './commerce';
import {
  createPrice,
  createProduct,
  createVariant,
  Merchant,
  postResource,
} from './factories';
import { TestApp } from './test-app';

export interface LicenseOptions {
  testMode?: boolean;
  quantity?: number;
  /** null = unlimited. */
  activationLimit?: number | null;
  /** null = perpetual. */
  length?: { value: number; unit: LicenseLengthUnit } | null;
  subscription?: boolean;
  email?: string;
  customData?: Record<string, unknown> | null;
}

/**
 * Live-mode purchases for tests (`startTestApp(env, { modules: [...] })`):
 * the test gateway's card rules under the live token; nothing real is charged.
 */
@Global()
@Module({
  providers: [{ provide: LIVE_PAYMENT_GATEWAY, useClass: TestPaymentGateway }],
  exports: [LIVE_PAYMENT_GATEWAY],
})
export class LivePaymentsTestModule {}

/**
 * License keys as a customer gets them: a "Desktop App" product with a
 * licensed "Pro" variant, created over the API with the merchant's key of
 * that mode, bought by "Ada Buyer" with a JSON POST to its buy_now_url (to a
 * checkout's URL when there is custom data). Returns the purchase's keys in
 * id order. Each call buys a new product as a new customer unless `email`
 * says otherwise. Live mode needs the app started with LivePaymentsTestModule.
 */
export async function issueLicenseKeys(
  t: TestApp,
  merchant: Merchant,
  store: Store,
  options: LicenseOptions = {},
): Promise<LicenseKeyView[]> {
  const testMode = options.testMode ?? true;
  const key = testMode ? merchant.testKey : merchant.liveKey;
  const limit =
    options.activationLimit === undefined ? 5 : options.activationLimit;
  const length = options.length ?? null;
  const product = await createProduct(t.baseUrl, key, store.id, {
    name: 'Desktop App',
  });
  const variant = await createVariant(t.baseUrl, key, product.id, {
    name: 'Pro',
    status: 'published',
    has_license_keys: true,
    license_activation_limit: limit ?? 5,
    is_license_limit_unlimited: limit === null,
    license_length_value: length?.value ?? 1,
    license_length_unit: length?.unit ?? 'years',
    is_license_length_unlimited: length === null,
  });
  const price = options.subscription
    ? {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
      }
    : {};
  let url: string;
  if (options.customData) {
    // A checkout can only be made for a priced variant.
    await createPrice(t.baseUrl, key, variant.id, price);
    const checkout = await postResource(
      t.baseUrl,
      key,
      'checkouts',
      { checkout_data: { custom: options.customData } },
      {
        store: { type: 'stores', id: store.id },
        variant: { type: 'variants', id: variant.id },
      },
    );
    url = String(checkout.attributes.url);
  } else {
    // The published "Pro" hides the pending default variant, so the
    // product's buy_now_url sells it.
    [, url] = await Promise.all([
      createPrice(t.baseUrl, key, variant.id, price),
      buyNowUrl(t.baseUrl, key, product.id),
    ]);
  }
  const purchase = await buy(t.baseUrl, url, {
    email: options.email ?? `buyer-${randomUUID().slice(0, 8)}@example.com`,
    name: 'Ada Buyer',
    quantity: options.quantity ?? 1,
  });
  if (purchase.status !== 201) {
    throw new Error(
      `purchase answered ${purchase.status}: ${JSON.stringify(purchase.body)}`,
    );
  }
  const orderId = Number((purchase.body as { data: { id: string } }).data.id);
  return t.app
    .get(LicenseKeyService)
    .findByFilter(
      { userId: merchant.userId, apiKeyId: 0, testMode },
      'order_id',
      [orderId],
    );
}
