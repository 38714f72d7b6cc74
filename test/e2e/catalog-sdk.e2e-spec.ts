import {
  getFile,
  getPrice,
  getProduct,
  getVariant,
  listFiles,
  listPrices,
  listProducts,
  listVariants,
} from '@lemonsqueezy/lemonsqueezy.js';
import { FileService } from '../../src/modules/catalog/file.service';
import {
  createMerchant,
  createPrice,
  createPricedProduct,
  createProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

/** The official SDK, unmodified, reading a catalog stocked over the API. */
describe('catalog through the official SDK', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let otherStoreId: number;
  let productId: string;
  let variantIds: string[];
  let priceId: string;
  let fileId: number;
  let restore: () => void;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['SDK Store', 'Second Store']);
    storeId = merchant.stores[0].id;
    otherStoreId = merchant.stores[1].id;
    const product = await createProduct(t.baseUrl, merchant.testKey, storeId, {
      name: 'Bundle',
    });
    productId = product.id;
    const basic = await createVariant(t.baseUrl, merchant.testKey, productId, {
      name: 'Basic',
    });
    const pro = await createVariant(t.baseUrl, merchant.testKey, productId, {
      name: 'Pro',
      status: 'draft',
    });
    variantIds = [basic.id, pro.id];
    priceId = (
      await createPrice(t.baseUrl, merchant.testKey, basic.id, {
        category: 'subscription',
        unit_price: 900,
        renewal_interval_unit: 'month',
      })
    ).id;
    await createPrice(t.baseUrl, merchant.testKey, pro.id, {
      unit_price: 5000,
    });
    fileId = (
      await t.app
        .get(FileService)
        .attach({ userId: merchant.userId, testMode: true }, Number(basic.id), {
          name: 'bundle.zip',
          content: Buffer.from('zip'),
        })
    ).id;
    await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      otherStoreId,
      {},
      {
        name: 'Elsewhere',
      },
    );
    restore = useSdkAgainst(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    restore();
    await t.close();
  });

  it('listProducts and getProduct, with a store filter and includes', async () => {
    const all = await listProducts();
    expect(all.error).toBeNull();
    expect(all.data?.meta.page.total).toBe(2);
    const filtered = await listProducts({
      filter: { storeId },
      include: ['variants'],
      page: { size: 5 },
    });
    expect(filtered.error).toBeNull();
    expect(filtered.data?.data.map((p) => p.attributes.name)).toEqual([
      'Bundle',
    ]);
    expect(filtered.data?.included?.length).toBe(3);

    const one = await getProduct(productId, { include: ['store', 'variants'] });
    expect(one.error).toBeNull();
    expect(Object.keys(one.data!.data.attributes)).toHaveLength(19);
    expect(one.data?.data.attributes.from_price).toBe(900);
    expect(one.data?.data.attributes.to_price).toBe(900);
    expect(
      one.data?.included?.filter((r) => r.type === 'stores').map((r) => r.id),
    ).toEqual([String(storeId)]);

    const missing = await getProduct(999999);
    expect(missing.statusCode).toBe(404);
  });

  it('listVariants and getVariant, with product and status filters', async () => {
    const byProduct = await listVariants({ filter: { productId } });
    expect(byProduct.error).toBeNull();
    expect(byProduct.data?.data.map((v) => v.attributes.name)).toEqual([
      'Default',
      'Basic',
      'Pro',
    ]);
    const drafts = await listVariants({
      filter: { productId, status: 'draft' },
    });
    expect(drafts.data?.data.map((v) => v.id)).toEqual([variantIds[1]]);

    const one = await getVariant(variantIds[0], {
      include: ['product', 'files', 'price-model'],
    });
    expect(one.error).toBeNull();
    const attributes = one.data!.data.attributes;
    // The spec's 27 attributes and Zest's `download_limit`, `min_quantity`
    // and `max_quantity` extensions.
    expect(Object.keys(attributes)).toHaveLength(30);
    expect(attributes).toHaveProperty('download_limit', null);
    expect(attributes).toMatchObject({ min_quantity: 1, max_quantity: 1000 });
    expect(attributes).toMatchObject({
      price: 900,
      is_subscription: true,
      interval: 'month',
    });
    expect(one.data?.included?.map((r) => r.type).sort()).toEqual([
      'files',
      'prices',
      'products',
    ]);
  });

  it('listPrices and getPrice, with a variant filter', async () => {
    const prices = await listPrices({ filter: { variantId: variantIds[0] } });
    expect(prices.error).toBeNull();
    expect(prices.data?.data.map((p) => p.id)).toEqual([priceId]);
    const one = await getPrice(priceId, { include: ['variant'] });
    expect(one.error).toBeNull();
    expect(Object.keys(one.data!.data.attributes)).toHaveLength(19);
    expect(one.data?.data.attributes.renewal_interval_unit).toBe('month');
    expect(one.data?.included?.[0].id).toBe(variantIds[0]);
  });

  it('listFiles and getFile, with a variant filter', async () => {
    const files = await listFiles({ filter: { variantId: variantIds[0] } });
    expect(files.error).toBeNull();
    expect(files.data?.data.map((f) => Number(f.id))).toEqual([fileId]);
    const none = await listFiles({ filter: { variantId: variantIds[1] } });
    expect(none.data?.data).toEqual([]);
    const one = await getFile(fileId, { include: ['variant'] });
    expect(one.error).toBeNull();
    // The spec's 13 attributes and Zest's `sha256` extension.
    expect(Object.keys(one.data!.data.attributes)).toHaveLength(14);
    expect(one.data!.data.attributes).toHaveProperty('sha256');
    expect(one.data?.data.attributes.name).toBe('bundle.zip');
  });

  it('sees nothing of the test catalog with a live key', async () => {
    restore();
    restore = useSdkAgainst(t.baseUrl, merchant.liveKey);
    const products = await listProducts();
    expect(products.data?.data).toEqual([]);
    expect((await getProduct(productId)).statusCode).toBe(404);
    expect((await getPrice(priceId)).statusCode).toBe(404);
    expect((await getFile(fileId)).statusCode).toBe(404);
  });
});
