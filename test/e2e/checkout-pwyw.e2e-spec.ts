import request from 'supertest';
import { buy, buyNowUrl, GOOD_CARD, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

type Order = {
  attributes: { total: number; first_order_item: { price: number } };
};

/** Pay what you want: the page's amount (major units) and JSON custom_price (cents). */
describe('pay what you want on the hosted checkout', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let variantId: string;
  let buyUrl: string;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        category: 'pwyw',
        unit_price: 500,
        min_price: 500,
        suggested_price: 1500,
      },
      { name: 'Tip Jar' },
    );
    variantId = priced.variantId;
    buyUrl = await buyNowUrl(t.baseUrl, merchant.testKey, priced.product.id);
  });
  afterAll(() => t.close());

  const form = (url: string, fields: Record<string, string>) =>
    request(t.baseUrl)
      .post(pathOf(url))
      .type('form')
      .send({
        email: 'form@example.com',
        name: 'Form Buyer',
        'billing_address[country]': 'US',
        card_number: GOOD_CARD,
        intent: 'pay',
        ...fields,
      });

  const paid = (body: { data: Order }) => ({
    total: body.data.attributes.total,
    unit: body.data.attributes.first_order_item.price,
  });

  it('prefills the page with the suggested price and names the minimum', async () => {
    const page = await request(t.baseUrl).get(pathOf(buyUrl)).expect(200);
    expect(page.text).toMatch(
      /<input type="text" id="amount" name="amount" inputmode="decimal" value="15.00"/,
    );
    expect(page.text).toContain('Pay what you want (USD)');
    expect(page.text).toContain('Minimum $5.00');
    expect(page.text).toContain('<td data-total="total">$15.00</td>');
  });

  it('charges the suggested price when JSON names none, else custom_price in cents', async () => {
    const suggested = await buy(t.baseUrl, buyUrl).expect(201);
    expect(paid(suggested.body)).toEqual({ total: 1500, unit: 1500 });
    const chosen = await buy(t.baseUrl, buyUrl, {
      custom_price: 2500,
      quantity: 2,
    }).expect(201);
    expect(paid(chosen.body)).toEqual({ total: 5000, unit: 2500 });
    const minimum = await buy(t.baseUrl, buyUrl, {
      custom_price: '500',
    }).expect(201);
    expect(paid(minimum.body)).toEqual({ total: 500, unit: 500 });
  });

  it('refuses a JSON amount below the minimum or not in cents with 422', async () => {
    const low = await buy(t.baseUrl, buyUrl, { custom_price: 499 }).expect(422);
    expect(low.body.errors[0]).toMatchObject({
      status: '422',
      detail: 'The amount must be at least $5.00.',
      source: { pointer: '/custom_price' },
    });
    for (const custom_price of [12.5, -600, 'ten', ''])
      expect(
        (await buy(t.baseUrl, buyUrl, { custom_price }).expect(422)).body
          .errors[0].source,
      ).toEqual({ pointer: '/custom_price' });
    // The page's field name, in major units, is not guessed at on this path.
    const major = await buy(t.baseUrl, buyUrl, { amount: '12.50' }).expect(422);
    expect(major.body.errors[0].source).toEqual({ pointer: '/amount' });
    // A huge amount times the quantity is refused, not overflowed.
    await buy(t.baseUrl, buyUrl, {
      custom_price: 2_147_483_647,
      quantity: 2,
    }).expect(422);
  });

  it('re-shows the form with the message below the minimum, and pays the amount typed', async () => {
    const low = await form(buyUrl, { amount: '4.99' }).expect(422);
    expect(low.headers['content-type']).toMatch(/^text\/html/);
    expect(low.text).toContain('The amount must be at least $5.00.');
    expect(low.text).toMatch(/id="amount" name="amount"[^>]*value="4.99"/);
    await form(buyUrl, { amount: 'a lot' }).expect(422);

    // "Apply" reprices with the typed amount without paying.
    const applied = await form(buyUrl, {
      amount: '30',
      intent: 'apply',
    }).expect(200);
    expect(applied.text).toContain('<td data-total="total">$30.00</td>');
    expect(applied.text).toMatch(/name="amount"[^>]*value="30"/);

    const done = await form(buyUrl, {
      email: 'generous@example.com',
      amount: '20.5',
    }).expect(303);
    expect(done.headers.location).toMatch(/\/my-orders\//);
    const orders = await request(t.baseUrl)
      .get('/v1/orders?filter[user_email]=generous@example.com')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(orders.body.data).toHaveLength(1);
    expect(orders.body.data[0].attributes.total).toBe(2050);
  });

  it("lets a checkout's custom_price win over the buyer's amount", async () => {
    const checkout = await request(t.baseUrl)
      .post('/v1/checkouts')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'checkouts',
            attributes: { custom_price: 900 },
            relationships: {
              store: { data: { type: 'stores', id: String(storeId) } },
              variant: { data: { type: 'variants', id: variantId } },
            },
          },
        }),
      )
      .expect(201);
    const url = checkout.body.data.attributes.url as string;
    const page = await request(t.baseUrl).get(pathOf(url)).expect(200);
    expect(page.text).not.toContain('name="amount"');
    expect(page.text).toContain('<td data-total="total">$9.00</td>');
    expect(paid((await buy(t.baseUrl, url).expect(201)).body)).toEqual({
      total: 900,
      unit: 900,
    });
    const refused = await buy(t.baseUrl, url, { custom_price: 2000 }).expect(
      422,
    );
    expect(refused.body.errors[0].detail).toMatch(/checkout sets the price/);
    // A stale page field is ignored.
    await form(url, { amount: '1' }).expect(303);
  });

  it('refuses custom_price for a variant with a fixed price', async () => {
    const fixed = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1999 },
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, fixed.product.id);
    const page = await request(t.baseUrl).get(pathOf(url)).expect(200);
    expect(page.text).not.toContain('name="amount"');
    const refused = await buy(t.baseUrl, url, { custom_price: 100 }).expect(
      422,
    );
    expect(refused.body.errors[0]).toMatchObject({
      detail: 'custom_price applies only to pay-what-you-want variants.',
      source: { pointer: '/custom_price' },
    });
  });
});
