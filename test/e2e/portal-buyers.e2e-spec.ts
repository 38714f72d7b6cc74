import request from 'supertest';
import { buySubscription, freezeClock } from '../support/billing';
import { buy, DECLINED_CARD, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createPricedProduct,
  createProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

type Attributes = Record<string, unknown>;

const unescape = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
const textOf = (html: string) =>
  unescape(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
const hrefOf = (html: string, marker: string) => {
  const match = new RegExp(`<a href="([^"]+)" ${marker}>`).exec(html);
  if (!match) throw new Error(`no link ${marker} on the page`);
  return pathOf(unescape(match[1]));
};

describe('every buyer reaches what they bought; subscription terms disclosed', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    freezeClock(t.app, new Date('2026-11-25T12:00:00Z'));
  });
  afterAll(() => t.close());

  const api = (path: string) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Accept', 'application/vnd.api+json');

  async function licensedOffer() {
    const key = merchant.testKey;
    const product = await createProduct(t.baseUrl, key, storeId, {
      name: 'Desktop App',
    });
    const variant = await createVariant(t.baseUrl, key, product.id, {
      name: 'Single seat',
      status: 'published',
      has_license_keys: true,
      license_activation_limit: 3,
      is_license_limit_unlimited: false,
    });
    await createPrice(t.baseUrl, key, variant.id, { unit_price: 4900 });
    const read = await api(`/v1/products/${product.id}`).expect(200);
    return String(read.body.data.attributes.buy_now_url);
  }

  it('a one-time buyer: the receipt shows the key in full, the invoice and the portal, which lists the order but not the failed attempt', async () => {
    const url = await licensedOffer();
    const email = 'once@example.com';
    await buy(t.baseUrl, url, { email, card_number: DECLINED_CARD }).expect(
      402,
    );
    const bought = await buy(t.baseUrl, url, { email }).expect(201);
    const order = bought.body.data.attributes as Attributes;
    const keys = await api(
      `/v1/license-keys?filter[order_id]=${bought.body.data.id}`,
    ).expect(200);
    const key = String(keys.body.data[0].attributes.key);
    expect(key).toMatch(/^[0-9A-F-]{36}$/i);

    const receipt = await request(t.baseUrl)
      .get(pathOf((order.urls as Attributes).receipt as string))
      .expect(200);
    const receiptText = textOf(receipt.text);
    expect(receiptText).toContain(key);
    expect(receiptText).toContain('3 activations');
    // The invoice PDF link works.
    const invoice = await request(t.baseUrl)
      .get(hrefOf(receipt.text, 'data-invoice'))
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect([200, 202, 503]).toContain(invoice.status);

    // The spec keeps urls.customer_portal null for a one-time buyer ...
    const customer = await api(
      `/v1/customers/${String(order.customer_id)}`,
    ).expect(200);
    expect(customer.body.data.attributes.urls.customer_portal).toBeNull();
    // ... but the receipt leads to a portal anyway.
    const portal = await request(t.baseUrl)
      .get(hrefOf(receipt.text, 'data-portal'))
      .expect(200);
    const portalText = textOf(portal.text);
    expect(portalText).toContain(`#${String(order.order_number)}`);
    expect(portalText).toContain(key);
    expect(portalText).toContain('Desktop App');
    expect(portalText).not.toContain('Failed');
    // One row per listed order: the failed attempt is not one.
    expect(portal.text.match(/>Receipt<\/a>/g)).toHaveLength(1);
    expect(portal.text.match(/>PDF<\/a>/g)).toHaveLength(1);
  });

  it('deactivates a license key’s activation from the portal, through the License API', async () => {
    const url = await licensedOffer();
    const bought = await buy(t.baseUrl, url, {
      email: 'keys@example.com',
    }).expect(201);
    const keys = await api(
      `/v1/license-keys?filter[order_id]=${bought.body.data.id}`,
    ).expect(200);
    const key = String(keys.body.data[0].attributes.key);
    for (const name of ['Laptop', 'Desktop']) {
      await request(t.baseUrl)
        .post('/v1/licenses/activate')
        .type('form')
        .send({ license_key: key, instance_name: name })
        .expect(200);
    }
    const order = bought.body.data.attributes as Attributes;
    const receipt = await request(t.baseUrl)
      .get(pathOf((order.urls as Attributes).receipt as string))
      .expect(200);
    const portalPath = hrefOf(receipt.text, 'data-portal');
    const portal = await request(t.baseUrl).get(portalPath).expect(200);
    expect(textOf(portal.text)).toContain('2 / 3');
    const forms = [
      ...portal.text.matchAll(
        /<form method="post" action="([^"]+)" class="inline" data-instance>([^<]+)</g,
      ),
    ];
    expect(forms.map((f) => f[2].trim())).toEqual(['Laptop', 'Desktop']);
    const action = pathOf(unescape(forms[0][1]));
    // Cross-site posts and tampered links are refused.
    await request(t.baseUrl)
      .post(action)
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(403);
    await request(t.baseUrl)
      .post(
        action.replace(
          /\/instances\/[^/]+\//,
          '/instances/00000000-0000-4000-8000-000000000000/',
        ),
      )
      .expect(403);
    const done = await request(t.baseUrl).post(action).expect(303);
    expect(done.headers.location).toMatch(/\/portal\/customers\/\d+\?/);
    const after = await request(t.baseUrl)
      .get(pathOf(done.headers.location as string))
      .expect(200);
    expect(textOf(after.text)).toContain('1 / 3');
    expect(after.text).not.toMatch(/data-instance>Laptop/);
    // The License API sees the same: the instance is gone.
    const validate = await request(t.baseUrl)
      .post('/v1/licenses/validate')
      .type('form')
      .send({ license_key: key });
    expect(validate.body.license_key.activation_usage).toBe(1);
    // Posting the same form again: that activation is gone (404 page).
    const again = await request(t.baseUrl).post(action).expect(404);
    expect(textOf(again.text)).toContain('This activation does not exist');
  });

  it('discloses a trial’s terms on the checkout, the receipt and the portal', async () => {
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1200,
        trial_interval_unit: 'day',
        trial_interval_quantity: 14,
      },
    );
    const read = await api(`/v1/products/${product.id}`).expect(200);
    const url = String(read.body.data.attributes.buy_now_url);
    const terms =
      '14-day free trial, then $12.00 per month from Dec 9, 2026; cancel any time';
    const checkout = await request(t.baseUrl).get(pathOf(url)).expect(200);
    expect(textOf(checkout.text)).toContain(terms);
    expect(textOf(checkout.text)).toContain('Pay $0.00');

    const bought = await buy(t.baseUrl, url).expect(201);
    const order = bought.body.data.attributes as Attributes;
    const receipt = await request(t.baseUrl)
      .get(pathOf((order.urls as Attributes).receipt as string))
      .expect(200);
    expect(textOf(receipt.text)).toContain(terms);
    const portal = await request(t.baseUrl)
      .get(hrefOf(receipt.text, 'data-portal'))
      .expect(200);
    expect(textOf(portal.text)).toContain(terms);
    const manage =
      /<a href="([^"]+)" rel="noopener noreferrer">Manage<\/a>/.exec(
        portal.text,
      );
    const page = await request(t.baseUrl)
      .get(pathOf(unescape(manage![1])))
      .expect(200);
    expect(textOf(page.text)).toContain(terms);
  });

  it('discloses a metered plan’s unit price, billed in arrears', async () => {
    const { subscription } = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: null, unit_price_decimal: '2.5', usage_aggregation: 'sum' },
    );
    const page = await request(t.baseUrl)
      .get(
        pathOf(
          (subscription.attributes.urls as Attributes)
            .customer_portal_update_subscription as string,
        ),
      )
      .expect(200);
    expect(textOf(page.text)).toContain(
      '$0.025 per unit, billed in arrears per month from Dec 25, 2026; cancel any time',
    );
    expect(page.text).not.toContain('quantity-form');
  });
});
