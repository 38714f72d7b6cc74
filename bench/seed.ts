import 'reflect-metadata';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { CoreModule } from '../src/app/core.module';
import { loadConfig } from '../src/config/app-config';
import { openDatabase } from '../src/database/database-connection';
import { ApiKeyService } from '../src/modules/account/api-key.service';
import { UserService } from '../src/modules/account/user.service';
import { PriceService } from '../src/modules/catalog/price.service';
import { ProductService } from '../src/modules/catalog/product.service';
import { VariantService } from '../src/modules/catalog/variant.service';
import { CheckoutService } from '../src/modules/checkout/checkout.service';
import {
  Offer,
  PurchaseService,
} from '../src/modules/checkout/purchase.service';
import { StoreService } from '../src/modules/store/store.service';
import { bulkOrders } from './bulk-orders';
import { GOOD_CARD, type BenchState } from './state';

/**
 * Seeds the benchmark database through the services, in a process of its
 * own (it boots the Nest application context, not the HTTP app).
 *
 *   seed --state <file> --products <n>          catalog, keys, 100 usage subscriptions, license keys
 *   seed --state <file> --orders <n>            purchases until the store has n orders
 *   seed --state <file> --orders <n> --bulk     the same through bulk INSERTs (bulk-orders.ts, the 1M row)
 */

const USAGE_SUBSCRIPTIONS = 100;
const LICENSE_PURCHASES = 500;
const CUSTOMERS = 20_000;
/** Purchases in flight at once: enough to keep PostgreSQL busy on two cores. */
const PURCHASE_CONCURRENCY = 8;

async function pool<T>(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const runners = Array.from(
    { length: Math.min(concurrency, count) },
    async () => {
      for (;;) {
        const index = next++;
        if (index >= count) return;
        results[index] = await work(index);
      }
    },
  );
  await Promise.all(runners);
  return results;
}

function log(message: string) {
  process.stderr.write(`[seed] ${message}\n`);
}

async function seedCatalog(
  app: INestApplicationContext,
  products: number,
): Promise<BenchState> {
  const user = await app
    .get(UserService)
    .create({ email: 'bench@zest.local', name: 'Bench Merchant' });
  const store = await app.get(StoreService).create({
    userId: user.id,
    name: 'Bench Store',
    slug: 'bench',
    currency: 'USD',
    country: 'US',
  });
  const keys = app.get(ApiKeyService);
  const { key } = await keys.create(user.id, 'test', 'bench');
  // The real-limiter row gets a key of its own, so its window is not shared.
  const { key: limitedKey } = await keys.create(user.id, 'test', 'limited');
  const scope = { userId: user.id, testMode: true };
  const productService = app.get(ProductService);
  const variantService = app.get(VariantService);
  const prices = app.get(PriceService);
  const started = Date.now();
  const made = await pool(products, PURCHASE_CONCURRENCY, async (i) => {
    const product = await productService.create(scope, store.id, {
      name: `Product ${String(i).padStart(5, '0')}`,
      description: `<p>Benchmark product number ${i}.</p>`,
      status: 'published',
    });
    const [variant] = await variantService.findByFilter(scope, 'product_id', [
      product.id,
    ]);
    await prices.create(scope, variant.id, {
      category: 'one_time',
      unit_price: 500 + (i % 50) * 100,
    });
    return { productId: product.id, variantUuid: variant.uuid };
  });
  log(`${products} products in ${Date.now() - started} ms`);

  const special = async (
    name: string,
    license: boolean,
    price: Parameters<PriceService['create']>[2],
  ) => {
    const product = await productService.create(scope, store.id, {
      name,
      status: 'published',
    });
    let [variant] = await variantService.findByFilter(scope, 'product_id', [
      product.id,
    ]);
    if (license) {
      variant = await variantService.update(scope, variant.id, {
        has_license_keys: true,
        license_activation_limit: 5,
        is_license_length_unlimited: true,
      });
    }
    await prices.create(scope, variant.id, price);
    return variant.uuid;
  };
  const licenseVariantUuid = await special('Bench Desktop App', true, {
    category: 'one_time',
    unit_price: 4900,
  });
  const usageVariantUuid = await special('Bench API (metered)', false, {
    category: 'subscription',
    unit_price: 2,
    renewal_interval_unit: 'month',
    renewal_interval_quantity: 1,
    usage_aggregation: 'sum',
  });
  return {
    userId: user.id,
    storeId: store.id,
    apiKey: key,
    limitedApiKey: limitedKey,
    productIds: made.map((m) => m.productId),
    variantUuids: made.map((m) => m.variantUuid),
    licenseVariantUuid,
    usageVariantUuid,
    subscriptionItemIds: [],
    licenseKeys: [],
    orderIds: [],
  };
}

class Buyer {
  private readonly offers = new Map<string, Promise<Offer>>();

  constructor(private readonly app: INestApplicationContext) {}

  /** A buy_now_url purchase, as the hosted checkout's JSON path makes it. */
  async buy(uuid: string, customer: number) {
    let offer = this.offers.get(uuid);
    if (!offer) {
      // Offers are read-only snapshots of the catalog; the seed never changes it.
      offer = this.app.get(CheckoutService).offerForVariant(uuid);
      this.offers.set(uuid, offer);
    }
    const result = await this.app.get(PurchaseService).purchase(await offer, {
      email: `buyer-${customer}@bench.test`,
      name: `Buyer ${customer}`,
      country: 'US',
      zip: '10001',
      cardNumber: GOOD_CARD,
    });
    if (result.status !== 'paid') throw new Error(`purchase ${result.status}`);
    return result.order;
  }
}

async function seedSubscriptionsAndLicenses(
  app: INestApplicationContext,
  state: BenchState,
) {
  const buyer = new Buyer(app);
  const db = app.get(DataSource);
  await pool(USAGE_SUBSCRIPTIONS, PURCHASE_CONCURRENCY, (i) =>
    buyer.buy(state.usageVariantUuid, CUSTOMERS + i),
  );
  await pool(LICENSE_PURCHASES, PURCHASE_CONCURRENCY, (i) =>
    buyer.buy(state.licenseVariantUuid, i),
  );
  const items: { id: number }[] = await db.query(
    `SELECT id FROM subscription_items WHERE store_id = $1 ORDER BY id`,
    [state.storeId],
  );
  const licenses: { key: string }[] = await db.query(
    `SELECT key FROM license_keys WHERE store_id = $1 ORDER BY id`,
    [state.storeId],
  );
  state.subscriptionItemIds = items.map((row) => row.id);
  state.licenseKeys = licenses.map((row) => row.key);
}

async function orderCount(app: INestApplicationContext, storeId: number) {
  const [row]: { n: string }[] = await app
    .get(DataSource)
    .query(`SELECT count(*) AS n FROM orders WHERE store_id = $1`, [storeId]);
  return Number(row.n);
}

async function seedOrders(
  app: INestApplicationContext,
  state: BenchState,
  target: number,
  bulk: boolean,
) {
  const have = await orderCount(app, state.storeId);
  const missing = target - have;
  if (missing <= 0) return;
  const started = Date.now();
  if (bulk) {
    await bulkOrders(app, state, missing, CUSTOMERS);
  } else {
    const buyer = new Buyer(app);
    let done = 0;
    await pool(missing, PURCHASE_CONCURRENCY, async (i) => {
      const n = have + i;
      await buyer.buy(
        state.variantUuids[n % state.variantUuids.length],
        n % CUSTOMERS,
      );
      if (++done % 10_000 === 0) log(`${done}/${missing} purchases`);
    });
  }
  const seconds = (Date.now() - started) / 1000;
  log(
    `${missing} orders ${bulk ? 'imported' : 'purchased'} in ${seconds.toFixed(1)} s (${Math.round(missing / seconds)}/s)`,
  );
  const sample: { id: number }[] = await app
    .get(DataSource)
    .query(
      `SELECT id FROM orders WHERE store_id = $1 ORDER BY random() LIMIT 200`,
      [state.storeId],
    );
  state.orderIds = sample.map((row) => row.id);
}

async function main() {
  const { values } = parseArgs({
    options: {
      state: { type: 'string' },
      products: { type: 'string' },
      orders: { type: 'string' },
      bulk: { type: 'boolean' },
    },
  });
  if (!values.state) throw new Error('--state is required');
  const config = loadConfig();
  const database = await openDatabase(config);
  const app = await NestFactory.createApplicationContext(
    CoreModule.forRoot(
      { ...config, logLevel: 'warn', database: { ...config.database } },
      database,
    ),
    { logger: ['error', 'warn'] },
  );
  try {
    let state: BenchState | null = existsSync(values.state)
      ? (JSON.parse(readFileSync(values.state, 'utf8')) as BenchState)
      : null;
    if (values.products) {
      state = await seedCatalog(app, Number(values.products));
      await seedSubscriptionsAndLicenses(app, state);
    }
    if (!state) throw new Error('no state: seed the catalog first');
    if (values.orders)
      await seedOrders(app, state, Number(values.orders), values.bulk === true);
    // Fresh statistics and visibility maps, as autovacuum would leave them.
    await app.get(DataSource).query('VACUUM ANALYZE');
    writeFileSync(values.state, JSON.stringify(state));
  } finally {
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
