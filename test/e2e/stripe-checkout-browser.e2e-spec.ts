import { Client } from 'pg';
import { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { outboxEvents } from '../support/billing';
import { buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { connectStripe, stripeKeys } from '../support/stripe-checkout';
import { routeStripe } from '../support/stripe-browser';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';

const KEYS = stripeKeys('BrowserShop');

/**
 * Issue 25 item 2 in Chromium: the real hosted page, with js.stripe.com
 * routed to a stand-in Stripe.js and api.stripe.com to the Stripe double
 * (the page's own Content-Security-Policy applies). Success, decline, 3-D
 * Secure completed and abandoned, and a reload after paying.
 */
describe('the Stripe hosted checkout in a real browser', () => {
  let double: StripeDouble;
  let t: TestApp;
  let merchant: Merchant;
  let browser: Browser;
  let db: Client;
  let storeId: number;
  let url: string;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    merchant = await createMerchant(t.app, ['Browser Shop']);
    storeId = merchant.stores[0].id;
    await connectStripe(t.baseUrl, merchant.testKey, storeId, KEYS);
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2400 },
      { name: 'Field Recorder Presets' },
    );
    url = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await t.close();
    await double.stop();
  });

  /** A page whose Stripe.js is the stand-in and whose Stripe API is the double; records what Zest receives. */
  async function stripePage(): Promise<{ page: Page; sentToZest: string[] }> {
    const page = await browser.newPage();
    const sentToZest: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(t.baseUrl))
        sentToZest.push(`${request.url()} ${request.postData() ?? ''}`);
    });
    await routeStripe(page, double);
    return { page, sentToZest };
  }

  async function fillAndPay(page: Page, email: string, card: string) {
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('[data-stand-in-card]');
    await page.fill('#email', email);
    await page.fill('#name', 'Pat Browser');
    await page.fill('#country', 'US');
    await page.fill('[data-stand-in-card]', card);
    await page.click('button[value=pay]');
  }

  const ordersOf = async (email: string) =>
    (
      await db.query(
        `SELECT id, identifier, status, failure_reason FROM orders WHERE user_email = $1 ORDER BY id`,
        [email],
      )
    ).rows as {
      id: number;
      identifier: string;
      status: string;
      failure_reason: string | null;
    }[];

  it('pays with a card typed into the Payment Element and lands on the receipt; a reload after paying changes nothing', async () => {
    const { page, sentToZest } = await stripePage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(url);
    await page.waitForSelector('[data-stand-in-card]');
    await page.fill('#email', 'paid@example.com');
    await page.fill('#name', 'Pat Browser');
    await page.fill('#country', 'US');
    await page.fill('[data-stand-in-card]', '4242 4242 4242 4242');
    await page.screenshot({
      path: '/tmp/zest-stripe-checkout.png',
      fullPage: true,
    });
    let returnUrl = '';
    page.on('request', (request) => {
      if (request.url().includes('/return?')) returnUrl = request.url();
    });
    await Promise.all([
      page.waitForURL(/\/my-orders\/[0-9a-f-]+\?/),
      page.click('button[value=pay]'),
    ]);
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Thanks for your order!',
    );
    expect(errors).toEqual([]);
    // The card went to Stripe (the double), never to Zest.
    expect(sentToZest.join('\n')).not.toContain('4242');
    expect(returnUrl).toContain('payment_intent=pi_');
    const [order] = await ordersOf('paid@example.com');
    expect(order.status).toBe('paid');

    await page.goto(returnUrl);
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Thanks for your order!',
    );
    await page.reload();
    expect(await ordersOf('paid@example.com')).toHaveLength(1);
    expect(
      (await outboxEvents(t.app, storeId)).filter(
        (e) => e.name === 'order_created' && e.id === String(order.id),
      ),
    ).toHaveLength(1);
    await page.close();
  });

  it('shows the checkout again with the decline and a fresh form', async () => {
    const { page } = await stripePage();
    await Promise.all([
      page.waitForURL(/\/return\?/),
      fillAndPay(page, 'declined@example.com', '4000000000000002'),
    ]);
    await expect(page.locator('.errors').first().textContent()).resolves.toBe(
      'Your card was declined.',
    );
    await expect(page.locator('#email').inputValue()).resolves.toBe(
      'declined@example.com',
    );
    const [order] = await ordersOf('declined@example.com');
    expect(order).toMatchObject({
      status: 'failed',
      failure_reason: 'Your card was declined.',
    });
    // Paying again from the page shown works with another card.
    await page.waitForSelector('[data-stand-in-card]');
    await page.fill('[data-stand-in-card]', '4242424242424242');
    await Promise.all([
      page.waitForURL(/\/my-orders\/[0-9a-f-]+\?/),
      page.click('button[value=pay]'),
    ]);
    const orders = await ordersOf('declined@example.com');
    expect(orders.map((o) => o.status)).toEqual(['failed', 'paid']);
    await page.close();
  });

  it('completes a 3-D Secure challenge', async () => {
    const { page } = await stripePage();
    await fillAndPay(page, '3ds-ok@example.com', '4000002760003184');
    await page.waitForSelector('[data-stripe-3ds]');
    expect((await ordersOf('3ds-ok@example.com'))[0].status).toBe('pending');
    await Promise.all([
      page.waitForURL(/\/my-orders\/[0-9a-f-]+\?/),
      page.click('[data-3ds=complete]'),
    ]);
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Thanks for your order!',
    );
    expect((await ordersOf('3ds-ok@example.com'))[0].status).toBe('paid');
    await page.close();
  });

  it('fails the order when the 3-D Secure challenge is abandoned', async () => {
    const { page } = await stripePage();
    await fillAndPay(page, '3ds-no@example.com', '4000002760003184');
    await page.waitForSelector('[data-stripe-3ds]');
    await Promise.all([
      page.waitForURL(/\/return\?/),
      page.click('[data-3ds=fail]'),
    ]);
    await expect(
      page.locator('.errors').first().textContent(),
    ).resolves.toContain('failed authentication');
    const [order] = await ordersOf('3ds-no@example.com');
    expect(order.status).toBe('failed');
    expect(
      double
        .list(KEYS.secret_key, 'payment_intent')
        .find(
          (pi) =>
            (pi.metadata as Record<string, string>).zest_order ===
            order.identifier,
        )?.status,
    ).toBe('canceled');
    await page.close();
  });
});
