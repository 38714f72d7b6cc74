import { Browser } from 'playwright-core';
import request from 'supertest';
import { listOrders } from '@lemonsqueezy/lemonsqueezy.js';
import { launchChromium } from '../support/browser';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { buyNowUrl, GOOD_CARD } from '../support/commerce';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

describe('the hosted checkout in a real browser', () => {
  let t: TestApp;
  let merchant: Merchant;
  let browser: Browser;
  let checkoutUrl: string;

  beforeAll(async () => {
    t = await startTestApp({ TAX_RATES: '{"GB":{"name":"VAT","rate":20}}' });
    merchant = await createMerchant(t.app);
    const storeId = merchant.stores[0].id;
    const { variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2000 },
      {
        name: 'Type Specimen <Deluxe>',
        description: '<p>Every weight, <em>forever</em>.</p>',
      },
    );
    const auth = `Bearer ${merchant.testKey}`;
    await request(t.baseUrl)
      .post('/v1/discounts')
      .set('Authorization', auth)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'discounts',
            attributes: {
              name: 'Quarter off',
              code: 'SAVE25',
              amount: 25,
              amount_type: 'percent',
            },
            relationships: {
              store: { data: { type: 'stores', id: String(storeId) } },
            },
          },
        }),
      )
      .expect(201);
    const checkout = await request(t.baseUrl)
      .post('/v1/checkouts')
      .set('Authorization', auth)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'checkouts',
            attributes: {
              checkout_options: { button_color: '#0f766e', dark: true },
              checkout_data: { email: 'browser@example.com' },
              product_options: { receipt_thank_you_note: 'Enjoy the fonts!' },
            },
            relationships: {
              store: { data: { type: 'stores', id: String(storeId) } },
              variant: { data: { type: 'variants', id: variantId } },
            },
          },
        }),
      )
      .expect(201);
    checkoutUrl = checkout.body.data.attributes.url as string;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('fills the form, applies a discount, pays and lands on the receipt', async () => {
    const page = await browser.newPage({ javaScriptEnabled: false });
    const response = await page.goto(checkoutUrl);
    expect(response?.status()).toBe(200);
    // Escaped, not interpreted: the product name shows its angle brackets.
    await expect(page.locator('h1').first().textContent()).resolves.toBe(
      'Type Specimen <Deluxe>',
    );
    await expect(page.locator('#email').inputValue()).resolves.toBe(
      'browser@example.com',
    );
    await expect(
      page.locator('[data-total="total"]').textContent(),
    ).resolves.toBe('$20.00');

    await page.fill('#name', 'Brow Ser');
    await page.fill('#country', 'GB');
    await page.fill('#zip', 'EC1A 1BB');
    await page.fill('#discount_code', 'NOPE');
    await Promise.all([
      page.waitForNavigation(),
      page.click('button[value=apply]'),
    ]);
    await expect(
      page.locator('[data-discount="refused"]').textContent(),
    ).resolves.toMatch(/NOPE is not valid/);

    await page.fill('#discount_code', 'save25');
    await Promise.all([
      page.waitForNavigation(),
      page.click('button[value=apply]'),
    ]);
    await expect(
      page.locator('[data-discount="applied"]').textContent(),
    ).resolves.toBe('SAVE25: 25% off');
    await expect(
      page.locator('[data-total="discount"]').textContent(),
    ).resolves.toBe('−$5.00');
    await expect(
      page.locator('[data-total="tax"]').textContent(),
    ).resolves.toBe('$3.00');
    await expect(
      page.locator('[data-total="total"]').textContent(),
    ).resolves.toBe('$18.00');
    await expect(page.locator('#name').inputValue()).resolves.toBe('Brow Ser');
    await page.screenshot({ path: '/tmp/zest-checkout.png', fullPage: true });

    await page.fill('#card_number', GOOD_CARD);
    await Promise.all([
      page.waitForURL(/\/my-orders\//),
      page.click('button[value=pay]'),
    ]);
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Thanks for your order!',
    );
    const receipt = await page.locator('main').textContent();
    expect(receipt).toContain('Enjoy the fonts!');
    expect(receipt).toContain('$18.00');
    await page.screenshot({ path: '/tmp/zest-receipt.png', fullPage: true });
    const orderNumber = await page.locator('[data-order-number]').textContent();

    const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    try {
      const orders = await listOrders({
        filter: { userEmail: 'browser@example.com' },
      });
      expect(orders.error).toBeNull();
      expect(orders.data!.data).toHaveLength(1);
      expect(orders.data!.data[0].attributes).toMatchObject({
        status: 'paid',
        user_name: 'Brow Ser',
        discount_total: 500,
        tax: 300,
        total: 1800,
      });
      expect(orderNumber).toBe(
        `#${orders.data!.data[0].attributes.order_number}`,
      );
    } finally {
      restore();
    }
  });

  it('takes a pay-what-you-want amount, refusing one below the minimum', async () => {
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
      { category: 'pwyw', min_price: 500, suggested_price: 1500 },
      { name: 'Tip Jar' },
    );
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(await buyNowUrl(t.baseUrl, merchant.testKey, product.id));
    await expect(page.locator('#amount').inputValue()).resolves.toBe('15.00');
    await expect(
      page.locator('[data-amount="minimum"]').textContent(),
    ).resolves.toBe('Minimum $5.00');
    await page.fill('#amount', '4');
    await page.fill('#email', 'tipper@example.com');
    await page.fill('#name', 'Tip Per');
    await page.fill('#country', 'US');
    await page.fill('#card_number', GOOD_CARD);
    const refused = await Promise.all([
      page.waitForNavigation(),
      page.click('button[value=pay]'),
    ]);
    expect(refused[0]?.status()).toBe(422);
    await expect(page.locator('.errors').textContent()).resolves.toBe(
      'The amount must be at least $5.00.',
    );
    await expect(page.locator('#amount').inputValue()).resolves.toBe('4');

    await page.fill('#amount', '7.50');
    await page.fill('#card_number', GOOD_CARD);
    await Promise.all([
      page.waitForURL(/\/my-orders\//),
      page.click('button[value=pay]'),
    ]);
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Thanks for your order!',
    );
    await expect(
      page.locator('[data-total="total"]').textContent(),
    ).resolves.toBe('$7.50');
  });

  it('shows a declined card on the page, not as JSON', async () => {
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(checkoutUrl);
    await page.fill('#name', 'Decline Me');
    await page.fill('#country', 'GB');
    await page.fill('#card_number', '4000 0000 0000 0002');
    const declined = await Promise.all([
      page.waitForNavigation(),
      page.click('button[value=pay]'),
    ]);
    expect(declined[0]?.status()).toBe(402);
    await expect(page.locator('.errors').textContent()).resolves.toMatch(
      /declined/,
    );
    // What the buyer typed is kept, except the card number.
    await expect(page.locator('#name').inputValue()).resolves.toBe(
      'Decline Me',
    );
    await expect(page.locator('#card_number').inputValue()).resolves.toBe('');
  });
});
