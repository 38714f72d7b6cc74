import { INestApplicationContext } from '@nestjs/common';
import { ApiKeyService } from '../modules/account/api-key.service';
import { UserService } from '../modules/account/user.service';
import { StoreService } from '../modules/store/store.service';
import { seedDemoCatalog } from './demo-catalog';

export const DEMO_EMAIL = 'demo@zest.local';

export interface DemoSeed {
  user_id: number;
  store_id: number;
  /** The new test-mode key, or null when the demo already existed (keys are shown once). */
  api_key: string | null;
  /** The demo products: one-time with license keys, subscription, usage-based. */
  product_ids: number[];
  /** Catalog records this run created (0 on a repeat run). */
  catalog_created: number;
}

/** A demo user, store, test-mode key and catalog. Idempotent: a second run creates nothing. */
export async function seedDemo(
  app: INestApplicationContext,
): Promise<DemoSeed> {
  const users = app.get(UserService);
  const existing = await users.findByEmail(DEMO_EMAIL);
  if (existing) {
    const [store] = await app.get(StoreService).findAllOwned(existing.id);
    const catalog = await seedDemoCatalog(app, existing.id, store.id);
    return {
      user_id: existing.id,
      store_id: store.id,
      api_key: null,
      product_ids: catalog.productIds,
      catalog_created: catalog.created,
    };
  }
  const user = await users.create({ email: DEMO_EMAIL, name: 'Demo Merchant' });
  const store = await app.get(StoreService).create({
    userId: user.id,
    name: 'Demo Store',
    slug: 'demo',
    currency: 'USD',
    country: 'US',
  });
  const { key } = await app
    .get(ApiKeyService)
    .create(user.id, 'test', 'Demo test key');
  const catalog = await seedDemoCatalog(app, user.id, store.id);
  return {
    user_id: user.id,
    store_id: store.id,
    api_key: key,
    product_ids: catalog.productIds,
    catalog_created: catalog.created,
  };
}
