import request from 'supertest';
import { buySubscription, freezeClock } from '../support/billing';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createPricedProduct,
  createProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { issueLicenseKeys } from '../support/licensing';
import { startTestApp, TestApp } from '../support/test-app';

type Attributes = Record<string, unknown>;
interface ErrorObject {
  status: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
}

/**
 * Issue 22: the exact payloads real clients (the official JS SDK, the
 * Laravel package, the Go client) send, and the wire rules they rely on.
 */
describe('what real clients send', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let variantId: string;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    freezeClock(t.app, new Date('2027-03-01T12:00:00Z'));
    ({ variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1500 },
    ));
  });
  afterAll(() => t.close());

  const api = (key = merchant.testKey) => ({
    get: (path: string) =>
      request(t.baseUrl)
        .get(path)
        .set('Authorization', `Bearer ${key}`)
        .set('Accept', 'application/vnd.api+json'),
    send: (
      method: 'post' | 'patch',
      path: string,
      type: string,
      attributes: Attributes,
      relationships: Record<string, { type: string; id: string | number }> = {},
      id?: string,
    ) =>
      request(t.baseUrl)
        [method](path)
        .set('Authorization', `Bearer ${key}`)
        .set('Accept', 'application/vnd.api+json')
        .set('Content-Type', 'application/vnd.api+json')
        .send(
          JSON.stringify({
            data: {
              type,
              ...(id !== undefined ? { id } : {}),
              attributes,
              relationships: Object.fromEntries(
                Object.entries(relationships).map(([name, target]) => [
                  name,
                  { data: { type: target.type, id: String(target.id) } },
                ]),
              ),
            },
          }),
        ),
  });
  const store = () => ({ store: { type: 'stores', id: storeId } });
  const checkout = (attributes: Attributes) =>
    api().send('post', '/v1/checkouts', 'checkouts', attributes, {
      ...store(),
      variant: { type: 'variants', id: variantId },
    });
  const errorsOf = (body: { errors: ErrorObject[] }) =>
    body.errors.map((e) => [e.source?.pointer, e.detail]);

  describe('unknown attributes and integer strings', () => {
    it('swaps a plan with the Laravel package’s body: product_id and a string variant_id', async () => {
      const bought = await buySubscription(
        t.baseUrl,
        merchant.testKey,
        storeId,
        { unit_price: 1000 },
      );
      const yearly = await createVariant(
        t.baseUrl,
        merchant.testKey,
        bought.productId,
        { status: 'published' },
      );
      await createPrice(t.baseUrl, merchant.testKey, yearly.id, {
        category: 'subscription',
        unit_price: 10000,
        renewal_interval_unit: 'year',
        renewal_interval_quantity: 1,
      });
      const id = bought.subscription.id;
      // Subscription::swap($product, $variant) in lmsqueezy/laravel.
      const response = await request(t.baseUrl)
        .patch(`/v1/subscriptions/${id}`)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Accept', 'application/vnd.api+json')
        .set('Content-Type', 'application/vnd.api+json')
        .send(
          `{"data":{"type":"subscriptions","id":"${id}","attributes":{"product_id":${bought.productId},"variant_id":"${yearly.id}","invoice_immediately":false,"disable_prorations":false}}}`,
        );
      expect(response.status).toBe(200);
      expect(response.body.data.attributes).toMatchObject({
        product_id: Number(bought.productId),
        variant_id: Number(yearly.id),
      });
    });

    it('accepts and ignores unknown attributes on every kind of write', async () => {
      const customer = await api()
        .send(
          'post',
          '/v1/customers',
          'customers',
          {
            name: 'Ann',
            email: 'ann@example.com',
            shoe_size: 9,
            status: 'archived',
          },
          store(),
        )
        .expect(201);
      // So are the resource's own attributes that the route does not take.
      expect(customer.body.data.attributes).not.toHaveProperty('shoe_size');
      expect(customer.body.data.attributes.status).toBe('subscribed');
      await api()
        .send(
          'patch',
          `/v1/customers/${customer.body.data.id}`,
          'customers',
          { city: 'Oslo', newsletter: true },
          {},
          customer.body.data.id,
        )
        .expect(200);
      const product = await api()
        .send(
          'post',
          '/v1/products',
          'products',
          { name: 'Extras', colour: 'red' },
          store(),
        )
        .expect(201);
      const variant = await api()
        .send(
          'post',
          '/v1/variants',
          'variants',
          { name: 'Gold', weight: 3 },
          { product: { type: 'products', id: product.body.data.id } },
        )
        .expect(201);
      await api()
        .send(
          'post',
          '/v1/prices',
          'prices',
          { category: 'one_time', unit_price: 500, currency: 'USD' },
          { variant: { type: 'variants', id: variant.body.data.id } },
        )
        .expect(201);
      await api()
        .send(
          'post',
          '/v1/discounts',
          'discounts',
          {
            name: 'Spring',
            code: 'SPRING',
            amount: 10,
            amount_type: 'percent',
            colour: 'green',
          },
          store(),
        )
        .expect(201);
      await api()
        .send(
          'post',
          '/v1/webhooks',
          'webhooks',
          {
            url: 'https://example.com/hooks',
            // An event this file never causes: on the embedded defaults the
            // processors run in this process and would try to deliver to
            // the internet, which a test must never reach.
            events: ['subscription_payment_refunded'],
            secret: 'valid-secret',
            colour: 'blue',
          },
          store(),
        )
        .expect(201);
      await checkout({ locale: 'de', preview: false }).expect(201);
    });

    it('ignores unknown keys inside the checkout option objects too', async () => {
      const response = await checkout({
        product_options: { name: 'Font', future_option: 1 },
        checkout_options: { embed: true, future_flag: false },
        checkout_data: {
          email: 'ann@example.com',
          future_field: 'x',
          billing_address: { country: 'NO', line1: 'Storgata 1' },
          variant_quantities: [
            { variant_id: Number(variantId), quantity: 2, note: 'x' },
          ],
          custom: { kept: true },
        },
      }).expect(201);
      const attributes = response.body.data.attributes;
      expect(attributes.product_options).not.toHaveProperty('future_option');
      expect(attributes.checkout_options).not.toHaveProperty('future_flag');
      expect(attributes.checkout_data).not.toHaveProperty('future_field');
      expect(attributes.checkout_data.billing_address).toEqual({
        country: 'NO',
        zip: '',
      });
      expect(attributes.checkout_data.variant_quantities).toEqual([
        { variant_id: Number(variantId), quantity: 2 },
      ]);
      expect(attributes.checkout_data.custom).toEqual({ kept: true });
    });

    it('takes integer strings for integer attributes on every write route', async () => {
      const discount = await api()
        .send(
          'post',
          '/v1/discounts',
          'discounts',
          {
            name: 'Strings',
            code: 'STRINGS',
            amount: '15',
            amount_type: 'percent',
            is_limited_redemptions: true,
            max_redemptions: '3',
            duration: 'repeating',
            duration_in_months: '2',
          },
          store(),
        )
        .expect(201);
      expect(discount.body.data.attributes).toMatchObject({
        amount: 15,
        max_redemptions: 3,
        duration_in_months: 2,
      });
      const created = await checkout({ custom_price: '2500' }).expect(201);
      expect(created.body.data.attributes.custom_price).toBe(2500);
      const product = await createProduct(t.baseUrl, merchant.testKey, storeId);
      const variant = await api()
        .send(
          'post',
          '/v1/variants',
          'variants',
          { name: 'Sorted', sort: '4', license_activation_limit: '2' },
          { product: { type: 'products', id: product.id } },
        )
        .expect(201);
      expect(variant.body.data.attributes).toMatchObject({
        sort: 4,
        license_activation_limit: 2,
      });
      const price = await api()
        .send(
          'post',
          '/v1/prices',
          'prices',
          { category: 'one_time', unit_price: '700' },
          { variant: { type: 'variants', id: variant.body.data.id } },
        )
        .expect(201);
      expect(price.body.data.attributes.unit_price).toBe(700);
      const [key] = await issueLicenseKeys(t, merchant, merchant.stores[0]);
      const patched = await api()
        .send(
          'patch',
          `/v1/license-keys/${key.id}`,
          'license-keys',
          { activation_limit: '7' },
          {},
          String(key.id),
        )
        .expect(200);
      expect(patched.body.data.attributes.activation_limit).toBe(7);
    });

    it.each([['4.5'], ['abc'], [''], ['1e3'], [' 4'], [true], [[4]]])(
      'refuses %p for an integer attribute with 422',
      async (amount) => {
        const response = await api()
          .send(
            'post',
            '/v1/discounts',
            'discounts',
            { name: 'Bad', code: 'BAD', amount, amount_type: 'fixed' },
            store(),
          )
          .expect(422);
        expect(errorsOf(response.body)).toEqual([
          ['/data/attributes/amount', 'The amount must be an integer.'],
        ]);
      },
    );
  });

  describe('checkout_data with the dotted billing_address keys (the Go client)', () => {
    it('reads billing_address.country and billing_address.zip', async () => {
      const response = await checkout({
        checkout_data: {
          email: 'go@example.com',
          'billing_address.country': 'DE',
          'billing_address.zip': '10115',
        },
      }).expect(201);
      expect(response.body.data.attributes.checkout_data).toMatchObject({
        email: 'go@example.com',
        billing_address: { country: 'DE', zip: '10115' },
      });
      expect(Object.keys(response.body.data.attributes.checkout_data)).toEqual([
        'email',
        'name',
        'billing_address',
        'tax_number',
        'discount_code',
        'custom',
        'variant_quantities',
      ]);
    });

    it('takes both forms when they agree and refuses them when they differ', async () => {
      await checkout({
        checkout_data: {
          billing_address: { country: 'DE' },
          'billing_address.country': 'DE',
        },
      }).expect(201);
      const refused = await checkout({
        checkout_data: {
          billing_address: { country: 'DE', zip: '10115' },
          'billing_address.zip': '10117',
        },
      }).expect(422);
      expect(refused.body.errors).toEqual([
        expect.objectContaining({
          status: '422',
          source: {
            pointer: '/data/attributes/checkout_data/billing_address.zip',
          },
        }),
      ]);
      const badCountry = await checkout({
        checkout_data: { 'billing_address.country': 'XX' },
      }).expect(422);
      expect(badCountry.body.errors[0].source).toEqual({
        pointer: '/data/attributes/checkout_data/billing_address.country',
      });
    });
  });

  describe('validation messages', () => {
    const RAW_CLASS_VALIDATOR =
      /should not exist|must be an integer number|must be a number conforming|each value in|must be a boolean value|must be a string$|must be shorter than|must not be less than|must not be greater than|must be one of the following values/;

    it('says what is wrong with the field, once per field', async () => {
      const cases: [
        string,
        string,
        string,
        Attributes,
        Record<string, { type: string; id: string | number }>,
        [string, string][],
      ][] = [
        [
          'post',
          '/v1/customers',
          'customers',
          { email: 'nameless@example.com' },
          store(),
          [['/data/attributes/name', 'The name is required.']],
        ],
        [
          'post',
          '/v1/customers',
          'customers',
          { name: 'x'.repeat(256), email: 'long@example.com' },
          store(),
          [
            [
              '/data/attributes/name',
              'The name may be at most 255 characters.',
            ],
          ],
        ],
        [
          'post',
          '/v1/discounts',
          'discounts',
          { name: 'No amount', code: 'NOAMOUNT', amount_type: 'fixed' },
          store(),
          [['/data/attributes/amount', 'The amount is required.']],
        ],
        [
          'post',
          '/v1/discounts',
          'discounts',
          {
            name: 'Huge',
            code: 'HUGE',
            amount: 2147483648,
            amount_type: 'half',
          },
          store(),
          [
            [
              '/data/attributes/amount',
              'The amount may be at most 2147483647.',
            ],
            [
              '/data/attributes/amount_type',
              'The amount_type must be one of: percent, fixed.',
            ],
          ],
        ],
        [
          'post',
          '/v1/checkouts',
          'checkouts',
          { custom_price: 'abc' },
          { ...store(), variant: { type: 'variants', id: variantId } },
          [
            [
              '/data/attributes/custom_price',
              'The custom_price must be an integer.',
            ],
          ],
        ],
        [
          'post',
          '/v1/checkouts',
          'checkouts',
          { custom_price: -5, preview: 'yes' },
          { ...store(), variant: { type: 'variants', id: variantId } },
          [
            [
              '/data/attributes/custom_price',
              'The custom_price must be at least 0.',
            ],
            ['/data/attributes/preview', 'The preview must be true or false.'],
          ],
        ],
        [
          'post',
          '/v1/products',
          'products',
          { name: 42, pay_what_you_want: 'yes' },
          store(),
          [
            ['/data/attributes/name', 'The name must be a string.'],
            [
              '/data/attributes/pay_what_you_want',
              'The pay_what_you_want must be true or false.',
            ],
          ],
        ],
        [
          'post',
          '/v1/webhooks',
          'webhooks',
          { events: ['order_created', 'nope'], secret: 'abc' },
          store(),
          [
            ['/data/attributes/url', 'The url is required.'],
            [
              '/data/attributes/events',
              expect.stringMatching(
                /^Each entry of events must be one of: order_created, /,
              ) as unknown as string,
            ],
            [
              '/data/attributes/secret',
              'The secret must be 6 to 40 characters.',
            ],
          ],
        ],
        [
          'post',
          '/v1/usage-records',
          'usage-records',
          { quantity: 0, action: 'add' },
          { 'subscription-item': { type: 'subscription-items', id: '1' } },
          [
            ['/data/attributes/quantity', 'The quantity must be at least 1.'],
            [
              '/data/attributes/action',
              'The action must be one of: increment, set.',
            ],
          ],
        ],
        [
          'post',
          '/v1/variants',
          'variants',
          { name: '', sort: 3000000000, links: [{ url: 'https://x.test' }] },
          { product: { type: 'products', id: '1' } },
          [
            ['/data/attributes/name', 'The name must not be empty.'],
            ['/data/attributes/sort', 'The sort may be at most 2147483647.'],
            [
              '/data/attributes/links/0/title',
              'The links.0.title is required.',
            ],
          ],
        ],
      ];
      for (const [
        method,
        path,
        type,
        attributes,
        relationships,
        expected,
      ] of cases) {
        const response = await api().send(
          method as 'post',
          path,
          type,
          attributes,
          relationships,
        );
        expect({ path, attributes, status: response.status }).toEqual({
          path,
          attributes,
          status: 422,
        });
        const errors = errorsOf(response.body);
        expect({ path, attributes, errors }).toEqual({
          path,
          attributes,
          errors: expect.arrayContaining(expected) as unknown,
        });
        expect(errors).toHaveLength(expected.length);
        for (const [, detail] of errors)
          expect(detail).not.toMatch(RAW_CLASS_VALIDATOR);
      }
    });

    it('words PATCH refusals the same way', async () => {
      const bought = await buySubscription(
        t.baseUrl,
        merchant.testKey,
        storeId,
        { unit_price: 1000 },
      );
      const id = bought.subscription.id;
      const patch = (attributes: Attributes) =>
        api().send(
          'patch',
          `/v1/subscriptions/${id}`,
          'subscriptions',
          attributes,
          {},
          id,
        );
      expect(
        errorsOf((await patch({ variant_id: 'abc' }).expect(422)).body),
      ).toEqual([
        ['/data/attributes/variant_id', 'The variant_id must be an integer.'],
      ]);
      expect(
        errorsOf(
          (await patch({ billing_anchor: 32, cancelled: 'no' }).expect(422))
            .body,
        ),
      ).toEqual(
        expect.arrayContaining([
          [
            '/data/attributes/billing_anchor',
            'The billing_anchor may be at most 31.',
          ],
          [
            '/data/attributes/cancelled',
            'The cancelled must be true or false.',
          ],
        ]),
      );
    });
  });

  describe('checkout expires_at', () => {
    it('refuses a time in the past and takes one in the future', async () => {
      const past = await checkout({
        expires_at: '2027-03-01T11:59:59Z',
      }).expect(422);
      expect(errorsOf(past.body)).toEqual([
        [
          '/data/attributes/expires_at',
          'The expires_at must be in the future.',
        ],
      ]);
      const future = await checkout({
        expires_at: '2027-03-02T12:00:00Z',
      }).expect(201);
      expect(future.body.data.attributes.expires_at).toBe(
        '2027-03-02T12:00:00.000000Z',
      );
    });
  });

  describe('filters', () => {
    let subscriptionId: string;

    beforeAll(async () => {
      ({
        subscription: { id: subscriptionId },
      } = await buySubscription(
        t.baseUrl,
        merchant.testKey,
        storeId,
        { unit_price: 900 },
        { email: 'Mixed.Case@Example.com' },
      ));
    });

    const total = async (path: string) => {
      const response = await api().get(path).expect(200);
      return response.body.meta.page.total as number;
    };

    it('answers a known filter with a value no record has with an empty page', async () => {
      expect(
        await total(
          `/v1/subscription-invoices?filter[subscription_id]=${subscriptionId}&filter[status]=paid`,
        ),
      ).toBe(1);
      const pastDue = await api()
        .get('/v1/subscription-invoices?filter[status]=past_due')
        .expect(200);
      expect(pastDue.body.data).toEqual([]);
      expect(pastDue.body.meta.page).toMatchObject({ total: 0, lastPage: 1 });
      expect(pastDue.body.links.first).toContain('filter%5Bstatus%5D=past_due');
      for (const path of [
        '/v1/subscription-invoices?filter[refunded]=maybe',
        '/v1/subscriptions?filter[status]=nope',
        '/v1/variants?filter[status]=gone',
        '/v1/license-keys?filter[status]=bogus',
        '/v1/products?filter[store_id]=0',
        '/v1/orders?filter[store_id]=99999999999',
        `/v1/stores/${storeId}/subscriptions?filter[status]=nope`,
      ])
        expect({ path, total: await total(path) }).toEqual({ path, total: 0 });
    });

    it('keeps 400 for unknown filters and non-integer ids', async () => {
      for (const path of [
        '/v1/subscription-invoices?filter[colour]=red',
        '/v1/products?filter[store_id]=abc',
        '/v1/orders?filter[store_id]=1.5',
        '/v1/subscriptions?filter[order_id]=',
      ]) {
        const response = await api().get(path);
        expect({ path, status: response.status }).toEqual({
          path,
          status: 400,
        });
      }
    });

    it('matches every email filter the way a purchase finds its customer: whole address, any case', async () => {
      for (const email of [
        'mixed.case@example.com',
        'MIXED.CASE@EXAMPLE.COM',
        'Mixed.Case@Example.com',
      ]) {
        for (const path of [
          `/v1/customers?filter[email]=${encodeURIComponent(email)}`,
          `/v1/orders?filter[user_email]=${encodeURIComponent(email)}`,
          `/v1/subscriptions?filter[user_email]=${encodeURIComponent(email)}`,
        ])
          expect({ path, total: await total(path) }).toEqual({
            path,
            total: 1,
          });
      }
      // A second purchase with another spelling is the same customer.
      await buy(
        t.baseUrl,
        await buyNowUrl(
          t.baseUrl,
          merchant.testKey,
          (await createPricedProduct(t.baseUrl, merchant.testKey, storeId))
            .product.id,
        ),
        { email: 'MIXED.case@example.COM' },
      ).expect(201);
      expect(
        await total('/v1/customers?filter[email]=mixed.case@example.com'),
      ).toBe(1);
      expect(
        await total('/v1/orders?filter[user_email]=mixed.case@example.com'),
      ).toBe(2);
      expect(
        await total('/v1/orders?filter[user_email]=mixed.case@example'),
      ).toBe(0);
    });
  });
});
