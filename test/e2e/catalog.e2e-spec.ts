import request from 'supertest';
import { FileService } from '../../src/modules/catalog/file.service';
import {
  ApiResource,
  createMerchant,
  createPrice,
  createPricedProduct,
  createProduct,
  createVariant,
  defaultVariantId,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const PRODUCT_KEYS = [
  'store_id',
  'name',
  'slug',
  'description',
  'status',
  'status_formatted',
  'thumb_url',
  'large_thumb_url',
  'price',
  'price_formatted',
  'from_price',
  'to_price',
  'from_price_formatted',
  'to_price_formatted',
  'pay_what_you_want',
  'buy_now_url',
  'created_at',
  'updated_at',
  'test_mode',
];
const VARIANT_KEYS = [
  'product_id',
  'name',
  'slug',
  'description',
  'links',
  'has_license_keys',
  'license_activation_limit',
  'is_license_limit_unlimited',
  'license_length_value',
  'license_length_unit',
  'is_license_length_unlimited',
  'sort',
  'status',
  'status_formatted',
  'created_at',
  'updated_at',
  'test_mode',
  'price',
  'is_subscription',
  'interval',
  'interval_count',
  'has_free_trial',
  'trial_interval',
  'trial_interval_count',
  'pay_what_you_want',
  'min_price',
  'suggested_price',
  'download_limit',
  'min_quantity',
  'max_quantity',
];
const PRICE_KEYS = [
  'variant_id',
  'category',
  'scheme',
  'usage_aggregation',
  'unit_price',
  'unit_price_decimal',
  'setup_fee_enabled',
  'setup_fee',
  'package_size',
  'tiers',
  'renewal_interval_unit',
  'renewal_interval_quantity',
  'trial_interval_unit',
  'trial_interval_quantity',
  'min_price',
  'suggested_price',
  'tax_code',
  'created_at',
  'updated_at',
];
const FILE_KEYS = [
  'variant_id',
  'identifier',
  'name',
  'extension',
  'download_url',
  'size',
  'size_formatted',
  'version',
  'sort',
  'status',
  'createdAt',
  'updatedAt',
  'test_mode',
  'sha256',
];

describe('catalog: a store stocked over the API', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let storeId: number;

  beforeAll(async () => {
    t = await startTestApp({ CHECKOUT_BASE_URL: 'https://shop.example.test' });
    merchant = await createMerchant(t.app, []);
    other = await createMerchant(t.app, ['Other Store']);
  });
  afterAll(() => t.close());

  const get = (path: string, key = merchant.testKey) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');
  const send = (
    method: 'post' | 'patch',
    path: string,
    body: unknown,
    key = merchant.testKey,
  ) =>
    request(t.baseUrl)
      [method](path)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify(body));
  const total = async (path: string, key = merchant.testKey) =>
    (await get(path, key).expect(200)).body.meta.page.total as number;

  describe('stores', () => {
    it('creates a store owned by the key’s user (201) and updates it', async () => {
      const created = await send('post', '/v1/stores', {
        data: {
          type: 'stores',
          attributes: { name: 'Pixel Goods', currency: 'EUR', country: 'DE' },
        },
      }).expect(201);
      const store = created.body.data;
      // The spec's 15 attributes, Zest's `stripe` extension (never a key) and seller identity.
      expect(Object.keys(store.attributes)).toHaveLength(19);
      expect(store.attributes.stripe).toEqual({
        mode: 'test',
        configured: false,
      });
      expect(store.attributes).toMatchObject({
        name: 'Pixel Goods',
        slug: 'pixel-goods',
        currency: 'EUR',
        country: 'DE',
        country_nicename: 'Germany',
        plan: 'fresh',
        total_sales: 0,
      });
      storeId = Number(store.id);
      // Visible to the same user's live key: stores exist in both modes.
      await get(`/v1/stores/${storeId}`, merchant.liveKey).expect(200);
      await get(`/v1/stores/${storeId}`, other.testKey).expect(404);

      const updated = await send('patch', `/v1/stores/${storeId}`, {
        data: {
          type: 'stores',
          id: String(storeId),
          attributes: { currency: 'USD', domain: 'Pixel.Example.com' },
        },
      }).expect(200);
      expect(updated.body.data.attributes).toMatchObject({
        name: 'Pixel Goods',
        currency: 'USD',
        domain: 'pixel.example.com',
        url: 'https://pixel.example.com',
      });
      await send('patch', `/v1/stores/${other.stores[0].id}`, {
        data: {
          type: 'stores',
          id: String(other.stores[0].id),
          attributes: { name: 'Mine now' },
        },
      }).expect(404);
    });

    it.each([
      [{ name: 'X', currency: 'usd' }, 'currency'],
      [{ name: 'X', country: 'de' }, 'country'],
      [{ name: 'X', currency: 'ABC' }, 'currency'],
      [{ name: 'X', slug: 'Not A Slug' }, 'slug'],
      [{ name: '' }, 'name'],
      [{ name: 5 }, 'name'],
      [{ name: 'X', domain: 'not a host' }, 'domain'],
    ])(
      'refuses %p with 422 at %s and writes nothing',
      async (attributes, field) => {
        const before = await total('/v1/stores');
        const response = await send('post', '/v1/stores', {
          data: { type: 'stores', attributes },
        }).expect(422);
        expect(response.body.errors[0].source.pointer).toBe(
          `/data/attributes/${field}`,
        );
        expect(response.body.errors[0].title).toBe('Unprocessable Entity');
        expect(await total('/v1/stores')).toBe(before);
      },
    );

    it('refuses a taken slug', async () => {
      const response = await send('post', '/v1/stores', {
        data: {
          type: 'stores',
          attributes: { name: 'Dup', slug: 'pixel-goods' },
        },
      }).expect(422);
      expect(response.body.errors[0].detail).toMatch(/taken/);
    });
  });

  describe('products, variants and prices', () => {
    let oneTime: ApiResource;
    let oneTimeVariant: string;
    let plans: ApiResource;
    let monthly: ApiResource;
    let yearly: ApiResource;
    let usage: ApiResource;
    let usageVariant: string;

    beforeAll(async () => {
      oneTime = await createProduct(t.baseUrl, merchant.testKey, storeId, {
        name: 'Icon Pack',
        description: '<p>400 icons</p>',
      });
      oneTimeVariant = await defaultVariantId(
        t.baseUrl,
        merchant.testKey,
        oneTime.id,
      );
      await send('patch', `/v1/variants/${oneTimeVariant}`, {
        data: {
          type: 'variants',
          id: oneTimeVariant,
          attributes: {
            has_license_keys: true,
            license_activation_limit: 3,
            is_license_length_unlimited: false,
            license_length_value: 2,
            license_length_unit: 'years',
            links: [{ title: 'Docs', url: 'https://docs.example.com' }],
          },
        },
      }).expect(200);
      await createPrice(t.baseUrl, merchant.testKey, oneTimeVariant, {
        unit_price: 2900,
      });

      plans = await createProduct(t.baseUrl, merchant.testKey, storeId, {
        name: 'Hosting',
      });
      monthly = await createVariant(t.baseUrl, merchant.testKey, plans.id, {
        name: 'Monthly',
        sort: 1,
      });
      yearly = await createVariant(t.baseUrl, merchant.testKey, plans.id, {
        name: 'Yearly',
        sort: 2,
      });
      await createPrice(t.baseUrl, merchant.testKey, monthly.id, {
        category: 'subscription',
        unit_price: 1500,
        renewal_interval_unit: 'month',
        trial_interval_unit: 'day',
        trial_interval_quantity: 14,
        setup_fee_enabled: true,
        setup_fee: 500,
      });
      await createPrice(t.baseUrl, merchant.testKey, yearly.id, {
        category: 'subscription',
        unit_price: 15000,
        renewal_interval_unit: 'year',
      });

      usage = await createProduct(t.baseUrl, merchant.testKey, storeId, {
        name: 'API Calls',
      });
      usageVariant = await defaultVariantId(
        t.baseUrl,
        merchant.testKey,
        usage.id,
      );
      await createPrice(t.baseUrl, merchant.testKey, usageVariant, {
        category: 'subscription',
        scheme: 'graduated',
        unit_price: null,
        renewal_interval_unit: 'month',
        usage_aggregation: 'sum',
        tiers: [
          { last_unit: 1000, unit_price: 2 },
          { last_unit: 'inf', unit_price: 1, fixed_fee: 100 },
        ],
      });
    });

    it('reads a one-time product back with every attribute', async () => {
      const response = await get(`/v1/products/${oneTime.id}`).expect(200);
      const product = response.body.data;
      expect(Object.keys(product.attributes)).toEqual(PRODUCT_KEYS);
      const variant = (await get(`/v1/variants/${oneTimeVariant}`)).body.data;
      expect(product.attributes).toEqual({
        store_id: storeId,
        name: 'Icon Pack',
        slug: 'icon-pack',
        description: '<p>400 icons</p>',
        status: 'published',
        status_formatted: 'Published',
        thumb_url: null,
        large_thumb_url: null,
        price: 2900,
        price_formatted: '$29.00',
        from_price: null,
        to_price: null,
        from_price_formatted: null,
        to_price_formatted: null,
        pay_what_you_want: false,
        buy_now_url: expect.stringMatching(
          /^https:\/\/shop\.example\.test\/checkout\/buy\/[0-9a-f-]{36}$/,
        ),
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
        test_mode: true,
      });
      expect(product.attributes.buy_now_url).toContain(variant.attributes.slug);
      expect(Object.keys(product.relationships)).toEqual(['store', 'variants']);
      expect(product.links.self).toBe(`${t.baseUrl}/v1/products/${oneTime.id}`);

      expect(Object.keys(variant.attributes)).toEqual(VARIANT_KEYS);
      expect(variant.attributes).toMatchObject({
        product_id: Number(oneTime.id),
        name: 'Default',
        status: 'pending',
        status_formatted: 'Pending',
        has_license_keys: true,
        license_activation_limit: 3,
        is_license_length_unlimited: false,
        license_length_value: 2,
        license_length_unit: 'years',
        links: [{ title: 'Docs', url: 'https://docs.example.com' }],
        price: 2900,
        is_subscription: false,
        interval: null,
        interval_count: null,
        has_free_trial: false,
        pay_what_you_want: false,
        min_price: 0,
        suggested_price: 0,
        test_mode: true,
      });
      expect(Object.keys(variant.relationships)).toEqual([
        'product',
        'files',
        'price-model',
      ]);
    });

    it('ranges a product with several variants and derives the deprecated variant fields', async () => {
      const product = (await get(`/v1/products/${plans.id}`)).body.data;
      expect(product.attributes).toMatchObject({
        price: 1500,
        price_formatted: '$15.00',
        from_price: 1500,
        to_price: 15000,
        from_price_formatted: '$15.00',
        to_price_formatted: '$150.00',
      });
      expect(product.attributes.buy_now_url).toMatch(
        new RegExp(`/checkout/buy/${monthly.attributes.slug as string}$`),
      );
      const variants = await get(
        `/v1/variants?filter[product_id]=${plans.id}`,
      ).expect(200);
      expect(
        variants.body.data.map((v: ApiResource) => [
          v.attributes.name,
          v.attributes.status,
        ]),
      ).toEqual([
        ['Default', 'pending'],
        ['Monthly', 'published'],
        ['Yearly', 'published'],
      ]);
      const m = variants.body.data[1].attributes;
      expect(m).toMatchObject({
        price: 1500,
        is_subscription: true,
        interval: 'month',
        interval_count: 1,
        has_free_trial: true,
        trial_interval: 'day',
        trial_interval_count: 14,
      });
      const published = await get(
        `/v1/variants?filter[product_id]=${plans.id}&filter[status]=published`,
      ).expect(200);
      expect(published.body.meta.page.total).toBe(2);
      expect(published.body.links.first).toContain(
        'filter%5Bstatus%5D=published',
      );
    });

    it('reads prices back with the exact attribute set, newest first', async () => {
      const monthlyPrices = await get(
        `/v1/prices?filter[variant_id]=${monthly.id}`,
      ).expect(200);
      const price = monthlyPrices.body.data[0];
      expect(Object.keys(price.attributes)).toEqual(PRICE_KEYS);
      expect(price.attributes).toMatchObject({
        variant_id: Number(monthly.id),
        category: 'subscription',
        scheme: 'standard',
        usage_aggregation: null,
        unit_price: 1500,
        unit_price_decimal: null,
        setup_fee_enabled: true,
        setup_fee: 500,
        package_size: 1,
        tiers: null,
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        trial_interval_unit: 'day',
        trial_interval_quantity: 14,
        min_price: null,
        suggested_price: null,
        tax_code: 'eservice',
      });
      expect(Object.keys(price.relationships)).toEqual(['variant']);

      const usagePrice = (
        await get(`/v1/variants/${usageVariant}/price-model`).expect(200)
      ).body.data;
      expect(usagePrice.attributes).toMatchObject({
        category: 'subscription',
        scheme: 'graduated',
        usage_aggregation: 'sum',
        unit_price: null,
        tiers: [
          {
            last_unit: 1000,
            unit_price: 2,
            unit_price_decimal: null,
            fixed_fee: 0,
          },
          {
            last_unit: 'inf',
            unit_price: 1,
            unit_price_decimal: null,
            fixed_fee: 100,
          },
        ],
      });

      // A new price replaces the current one; the old one stays readable.
      const newer = await createPrice(
        t.baseUrl,
        merchant.testKey,
        oneTimeVariant,
        {
          unit_price: 3900,
        },
      );
      const variant = await get(
        `/v1/variants/${oneTimeVariant}?include=price-model`,
      ).expect(200);
      expect(variant.body.data.relationships['price-model'].data).toEqual({
        type: 'prices',
        id: newer.id,
      });
      expect(variant.body.included[0].attributes.unit_price).toBe(3900);
      expect(variant.body.data.attributes.price).toBe(3900);
      const all = await get(
        `/v1/prices?filter[variant_id]=${oneTimeVariant}`,
      ).expect(200);
      expect(
        all.body.data.map((p: ApiResource) => p.attributes.unit_price),
      ).toEqual([3900, 2900]);
      expect(all.body.links.first).toContain('sort=-created_at');
      await send('patch', `/v1/prices/${newer.id}`, {
        data: { type: 'prices', id: newer.id, attributes: { unit_price: 1 } },
      }).expect(405);
      expect(
        (await get(`/v1/products/${oneTime.id}`)).body.data.attributes.price,
      ).toBe(3900);
    });

    it('lists products by name, filters by store and serves includes and nested routes', async () => {
      const list = await get(`/v1/products?filter[store_id]=${storeId}`).expect(
        200,
      );
      expect(list.body.data.map((p: ApiResource) => p.attributes.name)).toEqual(
        ['API Calls', 'Hosting', 'Icon Pack'],
      );
      expect(list.body.links.first).toBe(
        `${t.baseUrl}/v1/products?page%5Bnumber%5D=1&page%5Bsize%5D=10&filter%5Bstore_id%5D=${storeId}&sort=name`,
      );
      const included = await get(
        `/v1/products/${plans.id}?include=variants,store`,
      ).expect(200);
      expect(included.body.data.relationships.variants.data).toHaveLength(3);
      expect(included.body.data.relationships.store.data).toEqual({
        type: 'stores',
        id: String(storeId),
      });
      expect(
        included.body.included.map((r: ApiResource) => r.type).sort(),
      ).toEqual(['stores', 'variants', 'variants', 'variants']);

      const nested = await get(`/v1/products/${plans.id}/variants`).expect(200);
      expect(nested.body.meta.page.total).toBe(3);
      const storeProducts = await get(`/v1/stores/${storeId}/products`).expect(
        200,
      );
      expect(storeProducts.body.meta.page.total).toBe(3);
      const linkage = await get(
        `/v1/products/${plans.id}/relationships/variants`,
      ).expect(200);
      expect(linkage.body.data).toHaveLength(3);
      const store = await get(`/v1/stores/${storeId}?include=products`).expect(
        200,
      );
      expect(store.body.included).toHaveLength(3);
      const parent = await get(`/v1/variants/${monthly.id}/product`).expect(
        200,
      );
      expect(parent.body.data.id).toBe(plans.id);
      await get('/v1/products?include=nope').expect(400);
      await get('/v1/products?filter[store_id]=abc').expect(400);
      // A status no variant has matches nothing (issue 22).
      const gone = await get('/v1/variants?filter[status]=gone').expect(200);
      expect(gone.body.meta.page.total).toBe(0);
      await get('/v1/products?filter[name]=x').expect(400);
    });

    it('keeps the default-variant rule: the only variant stays pending', async () => {
      const lone = await createProduct(t.baseUrl, merchant.testKey, storeId);
      const variantId = await defaultVariantId(
        t.baseUrl,
        merchant.testKey,
        lone.id,
      );
      const refused = await send('patch', `/v1/variants/${variantId}`, {
        data: {
          type: 'variants',
          id: variantId,
          attributes: { status: 'published' },
        },
      }).expect(422);
      expect(refused.body.errors[0].source.pointer).toBe(
        '/data/attributes/status',
      );
      await send('post', '/v1/variants', {
        data: {
          type: 'variants',
          attributes: { name: 'Hidden', status: 'pending' },
          relationships: {
            product: { data: { type: 'products', id: lone.id } },
          },
        },
      }).expect(422);
      // With a second variant the default may be published as a choice of its own.
      await createVariant(t.baseUrl, merchant.testKey, lone.id, {
        status: 'draft',
      });
      await send('patch', `/v1/variants/${variantId}`, {
        data: {
          type: 'variants',
          id: variantId,
          attributes: { status: 'published' },
        },
      }).expect(200);
    });

    it('keeps sort positions distinct and the newest price current under parallel posts', async () => {
      const product = await createProduct(t.baseUrl, merchant.testKey, storeId);
      const variants = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          createVariant(t.baseUrl, merchant.testKey, product.id, {
            name: `Parallel ${i}`,
          }),
        ),
      );
      const sorts = variants.map((v) => Number(v.attributes.sort));
      expect(new Set(sorts).size).toBe(6);
      const prices = await Promise.all(
        [100, 200, 300, 400].map((unit_price) =>
          createPrice(t.baseUrl, merchant.testKey, variants[0].id, {
            unit_price,
          }),
        ),
      );
      const newest = prices.reduce((a, b) =>
        Number(a.id) > Number(b.id) ? a : b,
      );
      const variant = (await get(`/v1/variants/${variants[0].id}`)).body.data;
      expect(variant.attributes.price).toBe(newest.attributes.unit_price);
      const linkage = await get(
        `/v1/variants/${variants[0].id}/relationships/price-model`,
      ).expect(200);
      expect(linkage.body.data).toEqual({ type: 'prices', id: newest.id });
    });

    it('updates a product and refuses bad updates', async () => {
      const updated = await send('patch', `/v1/products/${usage.id}`, {
        data: {
          type: 'products',
          id: usage.id,
          attributes: {
            name: 'API Requests',
            status: 'draft',
            thumb_url: 'https://cdn.example.com/t.png',
            pay_what_you_want: true,
          },
        },
      }).expect(200);
      expect(updated.body.data.attributes).toMatchObject({
        name: 'API Requests',
        status: 'draft',
        status_formatted: 'Draft',
        thumb_url: 'https://cdn.example.com/t.png',
        large_thumb_url: null,
        pay_what_you_want: true,
        slug: 'api-calls',
      });
      await send('patch', `/v1/products/${usage.id}`, {
        data: { type: 'products', id: '999', attributes: { name: 'x' } },
      }).expect(409);
      await send('patch', `/v1/products/${usage.id}`, {
        data: { type: 'products', id: usage.id, attributes: { name: null } },
      }).expect(422);
      await send('patch', `/v1/products/${usage.id}`, {
        data: {
          type: 'products',
          id: usage.id,
          attributes: { slug: 'icon-pack' },
        },
      }).expect(422);
      await send('patch', `/v1/products/${usage.id}`, {
        data: {
          type: 'products',
          id: usage.id,
          attributes: { status: 'live' },
        },
      }).expect(422);
    });
  });

  describe('bad input writes nothing', () => {
    const productBody = (
      store: string,
      attributes: Record<string, unknown>,
    ) => ({
      data: {
        type: 'products',
        attributes,
        relationships: { store: { data: { type: 'stores', id: store } } },
      },
    });

    it('answers 404 with the relationship pointer for an unknown or foreign store', async () => {
      const before = await total('/v1/products');
      for (const store of ['999999', String(other.stores[0].id), 'abc']) {
        const response = await send(
          'post',
          '/v1/products',
          productBody(store, { name: 'Ghost' }),
        ).expect(404);
        expect(response.body.errors[0]).toEqual({
          status: '404',
          title: 'Not Found',
          detail: 'The related resource does not exist.',
          source: { pointer: '/data/relationships/store' },
          code: 'store_not_found',
        });
      }
      expect(await total('/v1/products')).toBe(before);
      expect(await total('/v1/variants')).toBeGreaterThan(0);
    });

    it('answers 422 for wrong attribute types and ignores unknown attributes', async () => {
      const products = await total('/v1/products');
      const variants = await total('/v1/variants');
      const wrong = await send(
        'post',
        '/v1/products',
        productBody(String(storeId), {
          name: 42,
          pay_what_you_want: 'yes',
          colour: 'red',
        }),
      ).expect(422);
      expect(
        wrong.body.errors
          .map((e: { source: { pointer: string } }) => e.source.pointer)
          .sort(),
      ).toEqual([
        '/data/attributes/name',
        '/data/attributes/pay_what_you_want',
      ]);
      await send(
        'post',
        '/v1/products',
        productBody(String(storeId), {}),
      ).expect(422);
      await send('post', '/v1/products', {
        data: { type: 'products', attributes: { name: 'No store' } },
      }).expect(422);
      await send('post', '/v1/products', {
        data: { type: 'variants', attributes: { name: 'Wrong type' } },
      }).expect(400);
      expect(await total('/v1/products')).toBe(products);
      expect(await total('/v1/variants')).toBe(variants);
    });

    it('refuses invalid prices with a pointer per problem and creates none', async () => {
      const { variantId } = await createPricedProduct(
        t.baseUrl,
        merchant.testKey,
        storeId,
      );
      const before = await total(`/v1/prices?filter[variant_id]=${variantId}`);
      const post = (attributes: Record<string, unknown>, id = variantId) =>
        send('post', '/v1/prices', {
          data: {
            type: 'prices',
            attributes,
            relationships: { variant: { data: { type: 'variants', id } } },
          },
        });
      const cases: [Record<string, unknown>, string][] = [
        [
          { category: 'subscription', unit_price: 100 },
          'renewal_interval_unit',
        ],
        [{ category: 'one_time', unit_price: -1 }, 'unit_price'],
        [{ category: 'one_time', unit_price: 1.5 }, 'unit_price'],
        [{ category: 'one_time', unit_price: '1.5' }, 'unit_price'],
        [
          {
            category: 'one_time',
            unit_price: 100,
            tiers: [{ last_unit: 'inf', unit_price: 1 }],
          },
          'tiers',
        ],
        [
          { category: 'one_time', unit_price: 100, usage_aggregation: 'sum' },
          'usage_aggregation',
        ],
        [{ category: 'rental', unit_price: 100 }, 'category'],
        [{ category: 'one_time' }, 'unit_price'],
      ];
      for (const [attributes, field] of cases) {
        const response = await post(attributes).expect(422);
        expect(
          response.body.errors.map(
            (e: { source: { pointer: string } }) => e.source.pointer,
          ),
        ).toContain(`/data/attributes/${field}`);
      }
      const foreignVariant = await defaultVariantId(
        t.baseUrl,
        other.testKey,
        (await createProduct(t.baseUrl, other.testKey, other.stores[0].id)).id,
      );
      const foreign = await post(
        { category: 'one_time', unit_price: 1 },
        foreignVariant,
      ).expect(404);
      expect(foreign.body.errors[0].source.pointer).toBe(
        '/data/relationships/variant',
      );
      expect(await total(`/v1/prices?filter[variant_id]=${variantId}`)).toBe(
        before,
      );
    });

    it('refuses variants for unknown products and bad license settings', async () => {
      const product = await createProduct(t.baseUrl, merchant.testKey, storeId);
      const before = await total(
        `/v1/variants?filter[product_id]=${product.id}`,
      );
      const post = (
        attributes: Record<string, unknown>,
        id: string = product.id,
      ) =>
        send('post', '/v1/variants', {
          data: {
            type: 'variants',
            attributes,
            relationships: { product: { data: { type: 'products', id } } },
          },
        });
      const missing = await post({ name: 'X' }, '987654').expect(404);
      expect(missing.body.errors[0].source.pointer).toBe(
        '/data/relationships/product',
      );
      await post({ name: 'X', license_length_unit: 'weeks' }).expect(422);
      await post({ name: 'X', license_activation_limit: -1 }).expect(422);
      await post({
        name: 'X',
        links: [{ title: 'a', url: 'not a url' }],
      }).expect(422);
      await post({ name: 'X', sort: 'first' }).expect(422);
      expect(await total(`/v1/variants?filter[product_id]=${product.id}`)).toBe(
        before,
      );
    });
  });

  describe('mode scoping and ownership', () => {
    it('never shows test products to a live key, nor live ones to a test key', async () => {
      const testProduct = await createProduct(
        t.baseUrl,
        merchant.testKey,
        storeId,
      );
      const liveProduct = await createProduct(
        t.baseUrl,
        merchant.liveKey,
        storeId,
        {
          name: 'Live Only',
        },
      );
      expect(liveProduct.attributes.test_mode).toBe(false);
      await get(`/v1/products/${testProduct.id}`, merchant.liveKey).expect(404);
      await get(`/v1/products/${liveProduct.id}`).expect(404);
      const liveList = await get('/v1/products', merchant.liveKey).expect(200);
      expect(liveList.body.data.map((p: ApiResource) => p.id)).toEqual([
        liveProduct.id,
      ]);
      const testVariant = await defaultVariantId(
        t.baseUrl,
        merchant.testKey,
        testProduct.id,
      );
      await get(`/v1/variants/${testVariant}`, merchant.liveKey).expect(404);
      await get(
        `/v1/products/${testProduct.id}/variants`,
        merchant.liveKey,
      ).expect(404);
      // A live key cannot price a test variant.
      const response = await send(
        'post',
        '/v1/prices',
        {
          data: {
            type: 'prices',
            attributes: { category: 'one_time', unit_price: 1 },
            relationships: {
              variant: { data: { type: 'variants', id: testVariant } },
            },
          },
        },
        merchant.liveKey,
      ).expect(404);
      expect(response.body.errors[0].source.pointer).toBe(
        '/data/relationships/variant',
      );
    });

    it('answers 404 for another user’s products, variants, prices and files', async () => {
      const { product, variantId, priceId } = await createPricedProduct(
        t.baseUrl,
        other.testKey,
        other.stores[0].id,
      );
      const file = await t.app
        .get(FileService)
        .attach({ userId: other.userId, testMode: true }, Number(variantId), {
          name: 'secret.pdf',
          content: Buffer.from('x'),
        });
      await get(`/v1/products/${product.id}`).expect(404);
      await get(`/v1/variants/${variantId}`).expect(404);
      await get(`/v1/prices/${priceId}`).expect(404);
      await get(`/v1/files/${file.id}`).expect(404);
      await get(`/v1/products?filter[store_id]=${other.stores[0].id}`)
        .expect(200)
        .expect((r) => expect(r.body.data).toEqual([]));
      await send('patch', `/v1/products/${product.id}`, {
        data: {
          type: 'products',
          id: product.id,
          attributes: { name: 'Mine' },
        },
      }).expect(404);
      await get(`/v1/products/${product.id}`, other.testKey).expect(200);
    });
  });

  describe('files', () => {
    it('attaches files through FileService and serves them by signed URL', async () => {
      const { variantId } = await createPricedProduct(
        t.baseUrl,
        merchant.testKey,
        storeId,
      );
      const files = t.app.get(FileService);
      const scope = { userId: merchant.userId, testMode: true };
      const content = Buffer.alloc(5 * 1024 * 1024 + 300, 7);
      const big = await files.attach(scope, Number(variantId), {
        name: 'Manual.PDF',
        content,
        contentType: 'application/pdf',
        version: '2.1',
      });
      await files.attach(scope, Number(variantId), {
        name: 'readme.txt',
        content: Buffer.from('hello'),
      });
      await expect(
        files.attach(
          { userId: other.userId, testMode: true },
          Number(variantId),
          {
            name: 'x.txt',
            content: Buffer.from('x'),
          },
        ),
      ).rejects.toMatchObject({ status: 404 });

      const list = await get(
        `/v1/files?filter[variant_id]=${variantId}`,
      ).expect(200);
      expect(list.body.data).toHaveLength(2);
      const file = list.body.data[0];
      expect(Object.keys(file.attributes)).toEqual(FILE_KEYS);
      expect(file.attributes).toMatchObject({
        variant_id: Number(variantId),
        identifier: big.identifier,
        name: 'Manual.PDF',
        extension: 'pdf',
        size: content.length,
        size_formatted: '5 MB',
        version: '2.1',
        sort: 0,
        status: 'published',
        createdAt: expect.stringMatching(TIMESTAMP),
        test_mode: true,
      });
      expect(list.body.data[1].attributes.sort).toBe(1);

      const url = new URL(file.attributes.download_url as string);
      const download = await request(t.baseUrl)
        .get(url.pathname + url.search)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect(download.headers['content-type']).toBe('application/pdf');
      expect((download.body as Buffer).equals(content)).toBe(true);
      const signature = url.searchParams.get('signature')!;
      const tampered = url.search.replace(
        signature,
        (signature[0] === '0' ? '1' : '0') + signature.slice(1),
      );
      await request(t.baseUrl)
        .get(url.pathname + tampered)
        .expect(403);
      await request(t.baseUrl).get(url.pathname).expect(403);

      const variant = await get(
        `/v1/variants/${variantId}?include=files`,
      ).expect(200);
      expect(variant.body.data.relationships.files.data).toHaveLength(2);
      const one = await get(`/v1/files/${big.id}?include=variant`).expect(200);
      expect(one.body.included[0].id).toBe(variantId);
      await get(`/v1/files/${big.id}`, merchant.liveKey).expect(404);
    });
  });
});
