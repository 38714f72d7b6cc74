import { randomBytes } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { ApiKeyMode } from '../../src/modules/account/api-key.entity';
import { ApiKeyService } from '../../src/modules/account/api-key.service';
import { UserService } from '../../src/modules/account/user.service';
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
