import request from 'supertest';
import {
  createCheckout,
  getCheckout,
  getOrder,
  getSubscriptionInvoice,
  listCheckouts,
  listSubscriptionInvoices,
} from '@lemonsqueezy/lemonsqueezy.js';
import { Clock } from '../../src/common/clock';
import { StoreService } from '../../src/modules/store/store.service';
import { outboxEvents } from '../support/billing';
import { buy, buyNowUrl } from '../support/commerce';
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

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const GOOD_CARD = '4242424242424242';

describe('checkouts and the hosted checkout', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let variantId: string;

  beforeAll(async () => {
    t = await startTestApp({
      TAX_RATES: '{"GB":{"name":"VAT","rate":20}}',
      CURRENCY_RATES: '{"EUR":1.1}',
    });
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    ({ variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1999 },
      { name: 'Pixel Font' },
    ));
  });
  afterAll(() => t.close());

  const api = (key = merchant.testKey) => ({
    post: (path: string, body: unknown) =>
      request(t.baseUrl)
        .post(path)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(JSON.stringify(body)),
    get: (path: string) =>
      request(t.baseUrl).get(path).set('Authorization', `Bearer ${key}`),
  });

  const checkoutBody = (
    attributes: Record<string, unknown> = {},
    variant: string = variantId,
    store: number = storeId,
  ) => ({
    data: {
      type: 'checkouts',
      attributes,
      relationships: {
        store: { data: { type: 'stores', id: String(store) } },
        variant: { data: { type: 'variants', id: variant } },
      },
    },
  });

  it('creates a checkout with the reference’s 12 attributes and a preview', async () => {
    const response = await api()
      .post(
        '/v1/checkouts',
        checkoutBody({
          preview: true,
          checkout_data: {
            email: 'buyer@example.com',
            billing_address: { country: 'GB' },
            custom: { user_id: '42' },
          },
          checkout_options: { button_color: '#7047EB', dark: true },
        }),
      )
      .expect(201);
    const checkout = response.body.data;
    expect(checkout.type).toBe('checkouts');
    expect(checkout.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(checkout.attributes)).toEqual([
      'store_id',
      'variant_id',
      'custom_price',
      'product_options',
      'checkout_options',
      'checkout_data',
      'preview',
      'expires_at',
      'created_at',
      'updated_at',
      'test_mode',
      'url',
    ]);
    expect(Object.keys(checkout.attributes.product_options)).toHaveLength(11);
    expect(Object.keys(checkout.attributes.checkout_data)).toHaveLength(7);
    expect(checkout.attributes.checkout_options).toMatchObject({
      button_color: '#7047EB',
      dark: true,
      quantity: 1,
    });
    expect(checkout.attributes.preview).toEqual({
      currency: 'USD',
      currency_rate: 1,
      subtotal: 1999,
      discount_total: 0,
      tax: 400,
      setup_fee: 0,
      total: 2399,
      subtotal_usd: 1999,
      discount_total_usd: 0,
      tax_usd: 400,
      setup_fee_usd: 0,
      total_usd: 2399,
      subtotal_formatted: '$19.99',
      discount_total_formatted: '$0.00',
      tax_formatted: '$4.00',
      setup_fee_formatted: '$0.00',
      total_formatted: '$23.99',
    });
    expect(checkout.attributes.created_at).toMatch(TIMESTAMP);
    expect(checkout.attributes.url).toMatch(
      new RegExp(
        `^${t.baseUrl}/checkout/custom/${checkout.id}\\?signature=[0-9a-f]{64}$`,
      ),
    );
    const again = await api().get(`/v1/checkouts/${checkout.id}`).expect(200);
    expect(again.body.data.attributes.preview).toBe(false);
  });

  it('buys through the JSON path of a checkout url', async () => {
    const created = await api()
      .post(
        '/v1/checkouts',
        checkoutBody({ checkout_data: { custom: { ref: 'abc' } } }),
      )
      .expect(201);
    const url = new URL(created.body.data.attributes.url);
    const response = await request(t.baseUrl)
      .post(url.pathname + url.search)
      .send({
        email: 'jane@example.com',
        name: 'Jane Buyer',
        billing_address: { country: 'GB', zip: 'N1 9GU' },
        quantity: 2,
        card_number: GOOD_CARD,
      })
      .expect(201);
    expect(response.headers['content-type']).toMatch(/vnd\.api\+json/);
    const order = response.body.data;
    expect(order.type).toBe('orders');
    expect(Object.keys(order.attributes)).toHaveLength(43); // the spec's 38, dispute, tax_note, refunded_tax, tax_evidence, invoice_number
    expect(order.attributes).toMatchObject({
      order_number: 1,
      status: 'paid',
      subtotal: 3998,
      tax: 800,
      total: 4798,
      tax_name: 'VAT',
      tax_rate: 20,
      user_email: 'jane@example.com',
    });
    expect(Object.keys(order.attributes.first_order_item)).toHaveLength(12);
    const receipt = await request(t.baseUrl)
      .get(
        new URL(order.attributes.urls.receipt).pathname +
          new URL(order.attributes.urls.receipt).search,
      )
      .expect(200);
    expect(receipt.text).toContain('#1');
  });

  it('sells each published, priced variant of a product, and no other', async () => {
    const key = merchant.testKey;
    const product = await createProduct(t.baseUrl, key, storeId);
    const variant = async (status: string, unitPrice: number | null) => {
      const created = await createVariant(t.baseUrl, key, product.id, {
        status,
      });
      if (unitPrice !== null)
        await createPrice(t.baseUrl, key, created.id, {
          unit_price: unitPrice,
        });
      return created.id;
    };
    const first = await variant('published', 1000);
    const second = await variant('published', 3000);
    const unpriced = await variant('published', null);
    const draft = await variant('draft', 5000);
    const url = await buyNowUrl(t.baseUrl, key, product.id);

    const own = await buy(t.baseUrl, url).expect(201);
    expect(own.body.data.attributes.first_order_item.variant_id).toBe(
      Number(first),
    );
    const chosen = await buy(t.baseUrl, url, { variant_id: second }).expect(
      201,
    );
    expect(chosen.body.data.attributes).toMatchObject({
      subtotal: 3000,
      first_order_item: { variant_id: Number(second), price: 3000 },
    });
    for (const refused of [unpriced, draft]) {
      const response = await buy(t.baseUrl, url, {
        variant_id: refused,
      }).expect(422);
      expect(response.body.errors[0].source.pointer).toBe('/variant_id');
    }
  });

  it('through the SDK', async () => {
    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      const created = await createCheckout(storeId, variantId, {
        checkoutData: { email: 'sdk@example.com' },
        preview: true,
      });
      expect(created.error).toBeNull();
      const id = created.data!.data.id;
      const one = await getCheckout(id);
      expect(one.data?.data.attributes.checkout_data.email).toBe(
        'sdk@example.com',
      );
      const list = await listCheckouts({ filter: { storeId } });
      expect(list.data?.data.map((c) => c.id)).toContain(id);
    } finally {
      restore();
    }
  });

  it('previews with the 17 keys of the SDK’s Preview type, the setup fee as the order charges it', async () => {
    const { variantId: plan } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1000,
        setup_fee_enabled: true,
        setup_fee: 500,
      },
      { name: 'Setup Plan' },
    );
    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      const created = await createCheckout(storeId, plan, {
        checkoutData: {
          email: 'setup@example.com',
          billingAddress: { country: 'GB' },
        },
        preview: true,
      });
      expect(created.error).toBeNull();
      const { preview, url } = created.data!.data.attributes;
      // The SDK's own tests count these keys; its type lists all 17.
      expect(Object.keys(preview).sort()).toEqual(
        [
          'currency',
          'currency_rate',
          'subtotal',
          'discount_total',
          'tax',
          'setup_fee',
          'total',
          'subtotal_usd',
          'discount_total_usd',
          'tax_usd',
          'setup_fee_usd',
          'total_usd',
          'subtotal_formatted',
          'discount_total_formatted',
          'tax_formatted',
          'setup_fee_formatted',
          'total_formatted',
        ].sort(),
      );
      // 20 % VAT on the plan and its setup fee.
      expect(preview).toEqual({
        currency: 'USD',
        currency_rate: 1,
        subtotal: 1000,
        discount_total: 0,
        tax: 300,
        setup_fee: 500,
        total: 1800,
        subtotal_usd: 1000,
        discount_total_usd: 0,
        tax_usd: 300,
        setup_fee_usd: 500,
        total_usd: 1800,
        subtotal_formatted: '$10.00',
        discount_total_formatted: '$0.00',
        tax_formatted: '$3.00',
        setup_fee_formatted: '$5.00',
        total_formatted: '$18.00',
      });
      // The order the checkout makes charges what the preview said.
      const order = await buy(t.baseUrl, url, {
        billing_address: { country: 'GB' },
      }).expect(201);
      const charged = order.body.data.attributes;
      for (const key of ['subtotal', 'tax', 'setup_fee', 'total'] as const)
        expect(charged[key]).toBe(preview[key]);
      expect(charged.setup_fee_formatted).toBe(preview.setup_fee_formatted);
    } finally {
      restore();
    }
  });

  it('gives currency_rate and tax_rate as numbers on previews, orders, subscription invoices and their webhook payloads', async () => {
    const euro = await t.app.get(StoreService).create({
      userId: merchant.userId,
      name: 'Euro Store',
      currency: 'EUR',
      country: 'DE',
    });
    const { variantId: plan } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      euro.id,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1000,
      },
    );
    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      const checkout = await createCheckout(euro.id, plan, {
        checkoutData: { billingAddress: { country: 'GB' } },
        preview: true,
      });
      expect(checkout.error).toBeNull();
      const { preview, url } = checkout.data!.data.attributes;
      expect(preview.currency_rate).toBe(1.1);
      const taxed = await buy(t.baseUrl, url, {
        billing_address: { country: 'GB' },
      }).expect(201);
      const order = await getOrder(taxed.body.data.id as string);
      expect(order.error).toBeNull();
      const attributes = order.data!.data.attributes;
      expect(typeof attributes.currency_rate).toBe('number');
      expect(typeof attributes.tax_rate).toBe('number');
      expect(attributes).toMatchObject({
        currency_rate: 1.1,
        tax_name: 'VAT',
        tax_rate: 20,
      });
      const invoices = await listSubscriptionInvoices({
        filter: { storeId: euro.id },
      });
      const invoice = await getSubscriptionInvoice(invoices.data!.data[0].id);
      expect(invoice.error).toBeNull();
      expect(typeof invoice.data!.data.attributes.currency_rate).toBe('number');
      expect(invoice.data!.data.attributes.currency_rate).toBe(1.1);

      // Without tax: the rate is still a number, 0, and tax_name is null.
      const untaxed = await buy(t.baseUrl, url).expect(201);
      const plain = (await getOrder(untaxed.body.data.id as string)).data!.data
        .attributes;
      expect(plain).toMatchObject({ tax_name: null, tax_rate: 0 });
    } finally {
      restore();
    }
    // Webhook payloads are the same documents.
    const events = await outboxEvents(t.app, euro.id);
    const rated = events.filter(
      (e) => e.type === 'orders' || e.type === 'subscription-invoices',
    );
    expect(rated.map((e) => e.name)).toEqual([
      'order_created',
      'subscription_payment_success',
      'order_created',
      'subscription_payment_success',
    ]);
    for (const event of rated) expect(event.attributes.currency_rate).toBe(1.1);
    expect(
      events
        .filter((e) => e.type === 'orders')
        .map((e) => e.attributes.tax_rate),
    ).toEqual([20, 0]);
  });

  it('refuses bad checkouts with clear 4xx', async () => {
    const other = await createMerchant(t.app, ['Other']);
    const foreign = await createPricedProduct(
      t.baseUrl,
      other.testKey,
      other.stores[0].id,
    );
    const second = await createMerchant(t.app, ['Second']);
    const cases: [unknown, number, string][] = [
      [checkoutBody({}, '999999'), 404, '/data/relationships/variant'],
      [checkoutBody({}, foreign.variantId), 404, '/data/relationships/variant'],
      [checkoutBody({}, variantId, 999999), 404, '/data/relationships/store'],
      [
        checkoutBody({}, variantId, second.stores[0].id),
        404,
        '/data/relationships/store',
      ],
      [checkoutBody({ test_mode: false }), 422, '/data/attributes/test_mode'],
      [
        checkoutBody({ custom_price: -1 }),
        422,
        '/data/attributes/custom_price',
      ],
      [
        checkoutBody({ expires_at: 'soon' }),
        422,
        '/data/attributes/expires_at',
      ],
      [
        checkoutBody({ product_options: { enabled_variants: [999999] } }),
        422,
        '/data/attributes/product_options/enabled_variants/0',
      ],
      [
        checkoutBody({ checkout_options: { button_color: 'red;x' } }),
        422,
        '/data/attributes/checkout_options/button_color',
      ],
      [
        checkoutBody({ checkout_data: { email: 5 } }),
        422,
        '/data/attributes/checkout_data/email',
      ],
      [
        checkoutBody({ checkout_data: { billing_address: { country: 'XX' } } }),
        422,
        '/data/attributes/checkout_data/billing_address/country',
      ],
      [
        checkoutBody({
          checkout_data: {
            variant_quantities: [{ variant_id: 1, quantity: 0 }],
          },
        }),
        422,
        '/data/attributes/checkout_data/variant_quantities/0/quantity',
      ],
      [
        checkoutBody({
          product_options: { redirect_url: 'javascript:alert(1)' },
        }),
        422,
        '/data/attributes/product_options/redirect_url',
      ],
    ];
    const before = await api().get('/v1/checkouts?page[size]=100').expect(200);
    for (const [body, status, pointer] of cases) {
      const response = await api().post('/v1/checkouts', body);
      expect([response.status, response.body.errors?.[0].source]).toEqual([
        status,
        { pointer },
      ]);
    }
    const after = await api().get('/v1/checkouts?page[size]=100').expect(200);
    expect(after.body.meta.page.total).toBe(before.body.meta.page.total);
  });

  it('serves the page at the signed url only, escaped, and stops at expires_at', async () => {
    const created = await api()
      .post(
        '/v1/checkouts',
        checkoutBody({
          product_options: {
            name: '<script>alert(1)</script>',
            redirect_url: 'https://example.com/thanks',
          },
          checkout_options: { discount: false },
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        }),
      )
      .expect(201);
    const url = new URL(created.body.data.attributes.url);
    expect(url.searchParams.get('expires')).toMatch(/^\d+$/);
    const page = await request(t.baseUrl)
      .get(url.pathname + url.search)
      .expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(
      /default-src 'none'/,
    );
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('name="discount_code"');
    expect(page.text).toContain('$19.99');

    // The signature is the credential: without it, or altered, nothing opens.
    await request(t.baseUrl).get(url.pathname).expect(403);
    const tampered = url.search.replace(/expires=\d+/, 'expires=9999999999');
    await request(t.baseUrl)
      .get(url.pathname + tampered)
      .expect(403);
    await request(t.baseUrl)
      .post(url.pathname)
      .send({ email: 'x@example.com' })
      .expect(403);

    // A form POST redirects to redirect_url.
    const form = await request(t.baseUrl)
      .post(url.pathname + url.search)
      .type('form')
      .send({
        email: 'form@example.com',
        name: 'Form Buyer',
        'billing_address[country]': 'US',
        card_number: GOOD_CARD,
        intent: 'pay',
      })
      .expect(303);
    expect(form.headers.location).toBe('https://example.com/thanks');

    // An expires_at already past is refused (issue 22); one a minute ahead
    // stops working once the clock passes it.
    const soon = new Date(Date.now() + 60_000);
    soon.setMilliseconds(0);
    const expiring = await api()
      .post('/v1/checkouts', checkoutBody({ expires_at: soon.toISOString() }))
      .expect(201);
    expect(expiring.body.data.attributes.expires_at).toBe(
      soon.toISOString().replace('.000Z', '.000000Z'),
    );
    const old = new URL(expiring.body.data.attributes.url);
    const clock = t.app.get(Clock);
    clock.now = () => new Date(soon.getTime() + 1000);
    try {
      const gone = await request(t.baseUrl)
        .get(old.pathname + old.search)
        .expect(403);
      expect(gone.text).toMatch(/expired/);
      await request(t.baseUrl)
        .post(old.pathname + old.search)
        .send({ email: 'late@example.com', card_number: GOOD_CARD })
        .expect(403);
    } finally {
      // Back to the class's clock.
      delete (clock as Partial<Clock>).now;
    }
  });

  it('lists checkouts newest first with filters, scoped to the key', async () => {
    const list = await api()
      .get(`/v1/checkouts?filter[variant_id]=${variantId}&page[size]=100`)
      .expect(200);
    const times = list.body.data.map(
      (c: { attributes: { created_at: string } }) => c.attributes.created_at,
    );
    expect(times).toEqual([...times].sort((a, b) => b.localeCompare(a)));
    expect(list.body.links.first).toContain('sort=-createdAt');
    const id = list.body.data[0].id;
    const other = await createMerchant(t.app, ['Elsewhere']);
    await api(other.testKey).get(`/v1/checkouts/${id}`).expect(404);
    await api(merchant.liveKey).get(`/v1/checkouts/${id}`).expect(404);
    await api().get('/v1/checkouts/not-a-uuid').expect(404);
    await api().get('/v1/checkouts?filter[nope]=1').expect(400);
    const withStore = await api()
      .get(`/v1/checkouts/${id}?include=store,variant`)
      .expect(200);
    expect(
      withStore.body.included.map((r: { type: string }) => r.type).sort(),
    ).toEqual(['stores', 'variants']);
  });
});
