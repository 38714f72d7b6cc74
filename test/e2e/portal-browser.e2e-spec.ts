import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { launchChromium } from '../support/browser';
import { buySubscription } from '../support/billing';
import {
  createMerchant,
  createPrice,
  createVariant,
  Merchant,
} from '../support/factories';
import { shoot } from '../support/screenshots';
import { startTestApp, TestApp } from '../support/test-app';

// Jest runs from the repository root.
const AXE = readFileSync(
  join('node_modules', 'axe-core', 'axe.min.js'),
  'utf8',
);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core in the page (evaluated over CDP: the pages' CSP allows no scripts). */
async function seriousViolations(page: Page): Promise<string[]> {
  if (process.env.PORTAL_TRACE) console.log('axe on', page.url().slice(0, 60));
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run: () => Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
}

describe('the customer portal in a real browser', () => {
  let t: TestApp;
  let merchant: Merchant;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Northwind Fonts']);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  const api = (path: string) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Accept', 'application/vnd.api+json');

  it('clicks through the billing form, cancel, resume, plan change and quantity; checkout, receipt and portal pass axe', async () => {
    const storeId = merchant.stores[0].id;
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1200 },
      { email: 'ada@example.com', name: 'Ada Lovelace' },
      { name: 'Font Cloud' },
    );
    const pro = await createVariant(
      t.baseUrl,
      merchant.testKey,
      bought.productId,
      { name: 'Studio', status: 'published' },
    );
    await createPrice(t.baseUrl, merchant.testKey, pro.id, {
      category: 'subscription',
      renewal_interval_unit: 'month',
      renewal_interval_quantity: 1,
      unit_price: 2900,
    });
    const order = await api(`/v1/orders/${bought.orderId}`).expect(200);
    const receiptUrl = String(order.body.data.attributes.urls.receipt);

    // The pages carry no scripts (CSP); JavaScript stays on for axe, evaluated over CDP.
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const axeFindings: string[] = [];

    // The checkout the plan is sold on (its buy-now link).
    const product = await api(`/v1/products/${bought.productId}`).expect(200);
    await page.goto(String(product.body.data.attributes.buy_now_url));
    await page.waitForSelector('button.pay');
    axeFindings.push(...(await seriousViolations(page)));
    await shoot(page, 'checkout');

    // The receipt, then the portal it links to.
    if (process.env.PORTAL_TRACE) console.log('receipt', receiptUrl);
    await page.goto(receiptUrl);
    if (process.env.PORTAL_TRACE) console.log('loaded');
    expect(await page.textContent('h1')).toBeTruthy();
    await page.setViewportSize({ width: 1280, height: 800 });
    axeFindings.push(...(await seriousViolations(page)));
    await shoot(page, 'receipt');
    await page.click('a[data-portal]');
    await page.waitForSelector('text=Subscriptions');
    axeFindings.push(...(await seriousViolations(page)));

    // The billing form: saved as the API saves it, the page says so.
    await page.fill('#address_line_1', 'Invalidenstraße 117');
    await page.fill('#city', 'Berlin');
    await page.fill('#zip', '10115');
    await page.fill('#country', 'de');
    await page.click('#billing-form button');
    await page.waitForSelector('text=Your billing details were saved.');
    expect(await page.inputValue('#country')).toBe('DE');
    axeFindings.push(...(await seriousViolations(page)));
    await shoot(page, 'portal-customer');
    const customerId = String(bought.subscription.attributes.customer_id);
    const customer = await api(`/v1/customers/${customerId}`).expect(200);
    expect(customer.body.data.attributes).toMatchObject({
      address: 'Invalidenstraße 117',
      city: 'Berlin',
      zip: '10115',
      country: 'DE',
    });

    // The subscription's own page.
    await page.click('a:text("Manage")');
    await page.waitForSelector('#plan-form');
    axeFindings.push(...(await seriousViolations(page)));
    await shoot(page, 'portal-subscription');

    // Plan change: priced first, then confirmed.
    await page.selectOption('#plan-variant', pro.id);
    await page.click('#plan-form button');
    await page.waitForSelector('#plan-confirm-form');
    expect(await page.textContent('[data-proration]')).toMatch(
      /added to your next renewal|Nothing is charged/,
    );
    axeFindings.push(...(await seriousViolations(page)));
    await shoot(page, 'portal-plan-confirm');
    await page.click('#plan-confirm-form button');
    await page.waitForSelector('text=Your plan was changed.');

    // Quantity: the browser's own limits, then the server's.
    await page.fill('#quantity', '3');
    await page.click('#quantity-form button');
    await page.waitForSelector('text=Your quantity was updated.');

    await page.click('#cancel-form button');
    await page.waitForSelector('text=Your subscription was cancelled.');
    await page.click('#resume-form button');
    await page.waitForSelector('text=Your subscription was resumed.');
    axeFindings.push(...(await seriousViolations(page)));

    // The payment-method page it links to.
    await page.click('a:text("Update payment method")');
    await page.waitForSelector('input[name="card_number"]');
    // Under the store's name, as every other hosted page.
    expect(await page.textContent('header.brand > span:last-child')).toBe(
      'Northwind Fonts',
    );
    axeFindings.push(...(await seriousViolations(page)));
    await shoot(page, 'portal-payment-method');
    await page.fill('input[name="card_number"]', '4242 4242 4242 4242');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Your payment method was updated.');
    expect(await page.textContent('header.brand > span:last-child')).toBe(
      'Northwind Fonts',
    );

    const after = await api(`/v1/subscriptions/${bought.subscription.id}`);
    expect(after.body.data.attributes).toMatchObject({
      status: 'active',
      cancelled: false,
      variant_name: 'Studio',
    });
    expect(after.body.data.attributes.first_subscription_item.quantity).toBe(3);
    expect(axeFindings).toEqual([]);
    await context.close();
  }, 300_000);
});
