import { randomBytes } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { Principal } from '../../src/http/auth/principal';
import { ApiKeyMode } from '../../src/modules/account/api-key.entity';
import { ApiKeyService } from '../../src/modules/account/api-key.service';
import { UserService } from '../../src/modules/account/user.service';
import {
  CustomerService,
  CustomerView,
} from '../../src/modules/customer/customer.service';
import { Store } from '../../src/modules/store/store.entity';
import { StoreService } from '../../src/modules/store/store.service';

export interface Merchant {
  userId: number;
  testKey: string;
  liveKey: string;
  stores: Store[];
}

const unique = () => randomBytes(4).toString('hex');

/** A user with a test key, a live key and the given stores, built through the services. */
export async function createMerchant(
  app: INestApplicationContext,
  storeNames: string[] = ['Main Store'],
): Promise<Merchant> {
  const user = await app.get(UserService).create({
    email: `merchant-${unique()}@example.com`,
    name: 'Test Merchant',
  });
  const keys = app.get(ApiKeyService);
  const key = async (mode: ApiKeyMode) =>
    (await keys.create(user.id, mode)).key;
  const stores: Store[] = [];
  for (const name of storeNames) {
    stores.push(await app.get(StoreService).create({ userId: user.id, name }));
  }
  return {
    userId: user.id,
    testKey: await key('test'),
    liveKey: await key('live'),
    stores,
  };
}

export interface CustomerFields {
  testMode?: boolean;
  name?: string;
  email?: string;
  city?: string | null;
  region?: string | null;
  country?: string | null;
}

/** A customer of one of the merchant's stores, built through CustomerService. */
export async function createCustomer(
  app: INestApplicationContext,
  merchant: Merchant,
  store: Store = merchant.stores[0],
  fields: CustomerFields = {},
): Promise<CustomerView> {
  const principal: Principal = {
    userId: merchant.userId,
    apiKeyId: 0,
    testMode: fields.testMode ?? true,
  };
  return app.get(CustomerService).create(principal, {
    storeId: String(store.id),
    name: fields.name ?? 'Test Customer',
    email: fields.email ?? `customer-${unique()}@example.com`,
    city: fields.city,
    region: fields.region,
    country: fields.country,
  });
}
