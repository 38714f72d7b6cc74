import request from 'supertest';
import { seedDemo } from '../../src/app/seed-demo';
import { CatalogService } from '../../src/modules/catalog/catalog.service';
import { VariantService } from '../../src/modules/catalog/variant.service';
import { ApiResource } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

describe('demo catalog seed and the purchase-flow lookup', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('seeds one-time, subscription and usage-based products once', async () => {
    const first = await seedDemo(t.app);
    expect(first.api_key).toMatch(/^zest_test_/);
    expect(first.product_ids).toHaveLength(3);
    expect(first.catalog_created).toBeGreaterThan(0);
    const second = await seedDemo(t.app);
    expect(second).toMatchObject({
      api_key: null,
      product_ids: first.product_ids,
      catalog_created: 0,
    });

    const get = (path: string) =>
      request(t.baseUrl)
        .get(path)
        .set('Authorization', `Bearer ${first.api_key}`)
        .expect(200);
    const products = (
      await get(`/v1/products?filter[store_id]=${first.store_id}`)
    ).body.data as ApiResource[];
    expect(products.map((p) => p.attributes.name)).toEqual([
      'Zest API',
      'Zest Cloud',
      'Zest Desktop App',
    ]);
    const variants = (await get('/v1/variants?page[size]=100')).body
      .data as ApiResource[];
    expect(variants).toHaveLength(5);
    const prices = (await get('/v1/prices?page[size]=100')).body
      .data as ApiResource[];
    expect(
      prices
        .map((p) => String(p.attributes.category))
        .sort((a, b) => a.localeCompare(b)),
    ).toEqual(['one_time', 'subscription', 'subscription', 'subscription']);
    expect(
      prices.filter((p) => p.attributes.usage_aggregation === 'sum'),
    ).toHaveLength(1);
    const licensed = variants.find((v) => v.attributes.has_license_keys);
    expect(licensed?.attributes.license_activation_limit).toBe(3);
    expect((await get('/v1/files')).body.meta.page.total).toBe(1);
  });

  it('finds purchasable variants for the checkout, and only those', async () => {
    const seed = await seedDemo(t.app);
    const catalog = t.app.get(CatalogService);
    const scope = { userId: seed.user_id, testMode: true };
    const [desktop, cloud] = [seed.product_ids[0], seed.product_ids[1]];
    expect(await catalog.findPurchasableVariant(scope, 987654)).toBeNull();
    const variants = t.app.get(VariantService);
    const [desktopDefault] = await variants.findByFilter(scope, 'product_id', [
      desktop,
    ]);
    const bought = await catalog.findPurchasableVariant(
      scope,
      desktopDefault.id,
    );
    expect(bought?.price.unitPrice).toBe(4900);
    expect(bought?.product.id).toBe(desktop);
    expect(bought?.choices.map((v) => v.id)).toEqual([desktopDefault.id]);
    const byUuid = await catalog.findPurchasableVariantByUuid(
      desktopDefault.uuid,
    );
    expect(byUuid?.variant.id).toBe(desktopDefault.id);

    const cloudVariants = await variants.findByFilter(scope, 'product_id', [
      cloud,
    ]);
    const hiddenDefault = cloudVariants.find((v) => v.status === 'pending')!;
    expect(
      await catalog.findPurchasableVariant(scope, hiddenDefault.id),
    ).toBeNull();
    const monthly = cloudVariants.find((v) => v.name === 'Monthly')!;
    const plan = await catalog.findPurchasableVariant(scope, monthly.id);
    expect(plan?.choices.map((v) => v.name)).toEqual(['Monthly', 'Yearly']);
    expect(plan?.price.renewalIntervalUnit).toBe('month');
    // Another mode or user sees nothing.
    expect(
      await catalog.findPurchasableVariant(
        { ...scope, testMode: false },
        monthly.id,
      ),
    ).toBeNull();
    expect(
      await catalog.findPurchasableVariant(
        { userId: seed.user_id + 1000, testMode: true },
        monthly.id,
      ),
    ).toBeNull();
  });
});
