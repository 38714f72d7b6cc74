import { randomUUID } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { Transactions } from '../../src/database/transactions';
import { CustomerService } from '../../src/modules/customer/customer.service';
import {
  LicenseKeyService,
  LicenseKeyView,
} from '../../src/modules/licensing/license-key.service';
import { LicenseLengthUnit } from '../../src/modules/licensing/license-key.state';
import { Store } from '../../src/modules/store/store.entity';

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
 * Issues keys for one order item through LicenseKeyService.issue, the call
 * the purchase flow makes. The catalog row, order and order item it needs are
 * written directly: this exercises licensing alone, the purchase e2e tests
 * cover the whole flow.
 */
export async function issueLicenseKeys(
  app: INestApplicationContext,
  store: Store,
  options: LicenseOptions = {},
): Promise<LicenseKeyView[]> {
  const testMode = options.testMode ?? true;
  const quantity = options.quantity ?? 1;
  const email =
    options.email ?? `buyer-${randomUUID().slice(0, 8)}@example.com`;
  return app.get(Transactions).run(async (manager) => {
    const customer = await app
      .get(CustomerService)
      .findOrCreateForPurchase(manager, {
        storeId: store.id,
        testMode,
        email,
        name: 'Ada Buyer',
      });
    const slug = randomUUID().slice(0, 8);
    const [product] = await manager.query<{ id: number }[]>(
      `INSERT INTO products (store_id, test_mode, name, slug, status)
       VALUES ($1, $2, 'Desktop App', $3, 'published') RETURNING id`,
      [store.id, testMode, slug],
    );
    const [variant] = await manager.query<{ id: number }[]>(
      `INSERT INTO variants (uuid, store_id, product_id, test_mode, name, slug, status, has_license_keys)
       VALUES ($1, $2, $3, $4, 'Pro', 'pro', 'published', true) RETURNING id`,
      [randomUUID(), store.id, product.id, testMode],
    );
    const [price] = await manager.query<{ id: number }[]>(
      `INSERT INTO prices (store_id, variant_id, test_mode, category, scheme, unit_price, tax_code)
       VALUES ($1, $2, $3, 'one_time', 'standard', 1000, 'eservice') RETURNING id`,
      [store.id, variant.id, testMode],
    );
    const [order] = await manager.query<{ id: number }[]>(
      `INSERT INTO orders (store_id, customer_id, identifier, order_number, test_mode,
         user_name, user_email, currency, currency_rate, tax_inclusive, status,
         subtotal, discount_total, tax, setup_fee, total,
         subtotal_usd, discount_total_usd, tax_usd, setup_fee_usd, total_usd)
       VALUES ($1, $2, $3,
         (SELECT coalesce(max(order_number), 0) + 1 FROM orders WHERE store_id = $1),
         $4, 'Ada Buyer', $5, 'USD', 1, false, 'paid', 1000, 0, 0, 0, 1000, 1000, 0, 0, 0, 1000)
       RETURNING id`,
      [store.id, customer.id, randomUUID(), testMode, email],
    );
    const [item] = await manager.query<{ id: number }[]>(
      `INSERT INTO order_items (order_id, store_id, product_id, variant_id, price_id,
         test_mode, product_name, variant_name, price, quantity)
       VALUES ($1, $2, $3, $4, $5, $6, 'Desktop App', 'Pro', 1000, $7) RETURNING id`,
      [
        order.id,
        store.id,
        product.id,
        variant.id,
        price.id,
        testMode,
        quantity,
      ],
    );
    const limit =
      options.activationLimit === undefined ? 5 : options.activationLimit;
    const length = options.length === undefined ? null : options.length;
    return app.get(LicenseKeyService).issue(manager, {
      storeId: store.id,
      testMode,
      customerId: customer.id,
      orderId: order.id,
      orderItemId: item.id,
      productId: product.id,
      productName: 'Desktop App',
      variantId: variant.id,
      variantName: 'Pro',
      userName: customer.name,
      userEmail: customer.email,
      quantity,
      license: {
        activationLimit: limit ?? 5,
        isLimitUnlimited: limit === null,
        lengthValue: length?.value ?? 1,
        lengthUnit: length?.unit ?? 'years',
        isLengthUnlimited: length === null,
      },
      subscription: options.subscription ?? false,
      now: new Date(),
      customData: options.customData,
    });
  });
}
