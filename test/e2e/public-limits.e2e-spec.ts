import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { routeRateLimits } from '../../src/http/route-policies';
import { buySubscription } from '../support/billing';
import {
  buy,
  buyNowUrl,
  DECLINED_CARD,
  GOOD_CARD,
  pathOf,
} from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

/** Small limits, so the attack and the page limits take seconds. */
const LIMITS = {
  PAGE_RATE_LIMIT_PER_MINUTE: 4,
  PURCHASE_RATE_LIMIT_PER_MINUTE: 20,
  CHECKOUT_RATE_LIMIT_PER_MINUTE: 30,
  PURCHASE_DECLINE_WEIGHT: 5,
  CHECKOUT_LOCK_DECLINES: 10,
  CHECKOUT_LOCK_SECONDS: 120,
};

/**
 * The public routes' limits (issue 23, "card testing"), on whichever store
 * the environment selects (Redis or memory). Each test uses addresses of its
 * own through X-Forwarded-For.
 */
describe('limits of the public routes', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  /** Links of one subscription purchase: receipt, portals, invoice. */
  let links: {
    receipt: string;
    customerPortal: string;
    subscriptionPortal: string;
    paymentMethod: string;
    invoice: string;
  };

  beforeAll(async () => {
    t = await startTestApp({
      ...Object.fromEntries(
        Object.entries(LIMITS).map(([name, value]) => [name, String(value)]),
      ),
      // The client IP comes from X-Forwarded-For, so tests can vary it.
      TRUST_PROXY: 'true',
    });
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    const bought = await buySubscription(t.baseUrl, merchant.testKey, storeId, {
      unit_price: 900,
    });
    const api = (path: string) =>
      request(t.baseUrl)
        .get(path)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .expect(200);
    const order = await api(`/v1/orders/${bought.orderId}`);
    const invoice = await request(t.baseUrl)
      .post(`/v1/orders/${bought.orderId}/generate-invoice`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    const urls = bought.subscription.attributes.urls as Record<string, string>;
    links = {
      receipt: pathOf(order.body.data.attributes.urls.receipt as string),
      customerPortal: pathOf(urls.customer_portal),
      subscriptionPortal: pathOf(urls.customer_portal_update_subscription),
      paymentMethod: pathOf(urls.update_payment_method),
      invoice: pathOf(invoice.body.meta.urls.download_invoice as string),
    };
  });
  afterAll(() => t.close());

  /** A new product's buy_now_url (its own checkout, so its own counters). */
  async function newCheckout(name: string): Promise<string> {
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1500 },
      { name },
    );
    return buyNowUrl(t.baseUrl, merchant.testKey, product.id);
  }

  const purchase = (url: string, ip: string, card: string) =>
    buy(t.baseUrl, url, { card_number: card }).set('X-Forwarded-For', ip);

  const expectRefusal = (
    response: request.Response,
    code: 'rate_limited' | 'checkout_locked',
  ) => {
    expect(response.status).toBe(429);
    expect(response.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    expect(response.body.errors[0]).toMatchObject({
      status: '429',
      title: 'Too Many Requests',
      code,
    });
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  };

  it('gives every public route a declared policy, read from Nest’s metadata (a public route without one stops the app)', () => {
    const routes = routeRateLimits(t.app);
    const declared = routes
      .filter((route) => route.isPublic)
      .map((route) => `${route.method} ${route.path} ${route.policy}`)
      .sort();
    expect(declared).toEqual(
      [
        'GET /checkout/:kind/:id page',
        'POST /checkout/:kind/:id purchase',
        'GET /my-orders/:identifier page',
        'GET /my-orders/:identifier/return purchase',
        'GET /portal/customers/:id page',
        'POST /portal/customers/:id/billing page',
        'GET /portal/subscriptions/:id page',
        'GET /portal/subscriptions/:id/payment-method page',
        'POST /portal/subscriptions/:id/payment-method purchase',
        'POST /portal/subscriptions/:id/payment-method/setup purchase',
        'GET /portal/subscriptions/:id/payment-method/return purchase',
        'POST /portal/subscriptions/:id/plan page',
        'POST /portal/subscriptions/:id/plan/preview page',
        'POST /portal/subscriptions/:id/quantity page',
        'POST /portal/subscriptions/:id/resume page',
        'GET /invoices/:type/:id page',
        'GET /downloads/:identifier page',
        'POST /v1/licenses/activate client-ip',
        'POST /v1/licenses/validate client-ip',
        'POST /v1/licenses/deactivate client-ip',
        'GET /v1/openapi.json page',
        'GET /docs page',
        'GET /docs/:asset page',
        'GET /dev/mailbox page',
        'GET /dev/mailbox/:id page',
        'GET /dev/mailbox/:id/html page',
        'GET /dev/mailbox/:id/text page',
        'GET /dev/mailbox/:id/source page',
        'GET /portal/sign-in page',
        'POST /portal/license-keys/:id/instances/:instance/deactivate page',
        'POST /portal/sign-in page',
        'POST /portal/subscriptions/:id/cancel page',
        'GET /health/live none',
        'GET /health/ready none',
        'GET /metrics none',
        'POST /webhooks/stripe/:storeId page',
      ].sort(),
    );
    // Every other route is behind an API key and counts per key.
    const others = routes.filter((route) => !route.isPublic);
    expect(others.length).toBeGreaterThan(50);
    for (const route of others)
      expect([undefined, 'api-key']).toContain(route.policy);
  });

  it('stops a card-testing run: 150 declined cards from one IP in parallel bursts, then a good card, get 429s; the checkout stays paused for other IPs while another checkout sells', async () => {
    const target = await newCheckout('Attacked');
    const attacker = '203.0.113.66';
    const answers: request.Response[] = [];
    for (let burst = 0; burst < 6; burst++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 25 }, () =>
            purchase(target, attacker, DECLINED_CARD),
          ),
        )),
      );
    }
    const declined = answers.filter((answer) => answer.status === 402);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(declined.length + refused.length).toBe(150);
    // At most the address's budget reached the gateway, and enough to pause
    // the checkout.
    expect(declined.length).toBeLessThanOrEqual(
      LIMITS.PURCHASE_RATE_LIMIT_PER_MINUTE,
    );
    expect(declined.length).toBeGreaterThanOrEqual(
      LIMITS.CHECKOUT_LOCK_DECLINES,
    );
    expect(declined[0].body.errors[0]).toMatchObject({
      status: '402',
      code: 'card_declined',
    });
    for (const answer of refused)
      expect(['rate_limited', 'checkout_locked']).toContain(
        answer.body.errors[0].code,
      );
    // From the second burst on, the checkout is paused.
    for (const answer of answers.slice(25))
      expectRefusal(answer, 'checkout_locked');

    // A good card from the same address: refused, not sold.
    const good = await purchase(target, attacker, GOOD_CARD);
    expectRefusal(good, 'checkout_locked');
    // From another address: still paused, for the pause's length.
    const other = await purchase(target, '198.51.100.5', GOOD_CARD);
    expectRefusal(other, 'checkout_locked');
    const retryAfter = Number(other.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(LIMITS.CHECKOUT_LOCK_SECONDS);
    // The attacker's address has spent its budget on other checkouts too.
    const elsewhere = await newCheckout('Elsewhere');
    expectRefusal(
      await purchase(elsewhere, attacker, GOOD_CARD),
      'rate_limited',
    );
    // Another checkout from another address still sells.
    const sold = await purchase(elsewhere, '198.51.100.6', GOOD_CARD);
    expect(sold.status).toBe(201);
    expect(sold.headers['x-ratelimit-limit']).toBe('20');
    expect(sold.headers['x-ratelimit-remaining']).toBe('19');

    // The page still renders, says purchases are paused, and cannot be paid.
    const page = await request(t.baseUrl)
      .get(pathOf(target))
      .set('X-Forwarded-For', '198.51.100.7')
      .set('Accept', 'text/html')
      .expect(200);
    expect(page.text).toContain('data-checkout="paused"');
    expect(page.text).toMatch(/<button[^>]*value="pay" disabled>/);
    // A form post is answered with a page too: 429, Retry-After.
    const form = await request(t.baseUrl)
      .post(pathOf(target))
      .set('X-Forwarded-For', '198.51.100.8')
      .type('form')
      .send({ email: 'a@example.com', card_number: GOOD_CARD });
    expect(form.status).toBe(429);
    expect(form.headers['content-type']).toMatch(/^text\/html/);
    expect(form.text).toContain('paused after too many declined payments');
    expect(Number(form.headers['retry-after'])).toBeGreaterThan(60);
  });

  it('weighs a declined card PURCHASE_DECLINE_WEIGHT per address and per checkout; a paying buyer spends 1 per purchase', async () => {
    const checkout = await newCheckout('Weighed');
    // 4 declines × 5 = the address's 20: its next attempt is refused.
    for (let i = 0; i < 4; i++)
      expect(
        (await purchase(checkout, '192.0.2.10', DECLINED_CARD)).status,
      ).toBe(402);
    expectRefusal(
      await purchase(checkout, '192.0.2.10', GOOD_CARD),
      'rate_limited',
    );
    // 2 more declines from another address: 30 on the checkout, its budget.
    for (let i = 0; i < 2; i++)
      expect(
        (await purchase(checkout, '192.0.2.11', DECLINED_CARD)).status,
      ).toBe(402);
    const full = await purchase(checkout, '192.0.2.12', GOOD_CARD);
    expectRefusal(full, 'rate_limited');
    expect(full.body.errors[0].detail).toMatch(/on this checkout/);

    // A buyer who pays: 20 purchases a minute from one address.
    const paying = await newCheckout('Paid');
    for (let i = 1; i <= 20; i++) {
      const sold = await purchase(paying, '192.0.2.20', GOOD_CARD);
      expect(sold.status).toBe(201);
      expect(sold.headers['x-ratelimit-remaining']).toBe(String(20 - i));
    }
    expectRefusal(
      await purchase(paying, '192.0.2.20', GOOD_CARD),
      'rate_limited',
    );
  });

  it('limits the portal’s card check like a purchase: declines weighted, per address', async () => {
    const update = (card: string) =>
      request(t.baseUrl)
        .post(links.paymentMethod)
        .set('X-Forwarded-For', '192.0.2.30')
        .set('Content-Type', 'application/json')
        .send({ card_number: card });
    for (let i = 0; i < 4; i++) {
      const answer = await update(DECLINED_CARD);
      expect(answer.status).toBe(422);
      expect(answer.body.errors[0].code).toBe('card_declined');
    }
    expectRefusal(await update(GOOD_CARD), 'rate_limited');
  });

  it('limits pages, signed links and the API reference per client IP (PAGE_RATE_LIMIT_PER_MINUTE), answering a browser with a page', async () => {
    const pages: [name: string, path: string, html: boolean][] = [
      ['hosted checkout page', pathOf(await newCheckout('Viewed')), true],
      ['receipt', links.receipt, true],
      ['customer portal', links.customerPortal, true],
      ['subscription portal', links.subscriptionPortal, true],
      ['update-payment-method page', links.paymentMethod, true],
      ['invoice PDF', links.invoice, false],
      ['file download (unsigned)', `/downloads/${randomUUID()}`, false],
      ['OpenAPI document', '/v1/openapi.json', false],
      ['API reference', '/docs', true],
    ];
    for (const [i, [name, path, html]] of pages.entries()) {
      const get = () =>
        request(t.baseUrl)
          .get(path)
          .set('X-Forwarded-For', `198.18.0.${i + 1}`)
          .set('Accept', html ? 'text/html' : '*/*');
      for (let n = 1; n <= LIMITS.PAGE_RATE_LIMIT_PER_MINUTE; n++) {
        const answer = await get();
        expect([name, n, answer.status < 429]).toEqual([name, n, true]);
        expect(answer.headers['x-ratelimit-limit']).toBe('4');
      }
      const refused = await get();
      expect([name, refused.status]).toEqual([name, 429]);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Pages for people answer a browser with a page; the rest, and /docs
      // (not a page of the shop), with a JSON:API error.
      const pageForPeople = html && name !== 'API reference';
      expect([name, refused.headers['content-type']]).toEqual([
        name,
        expect.stringMatching(
          pageForPeople ? /^text\/html/ : /^application\/vnd\.api\+json/,
        ),
      ]);
      if (!pageForPeople)
        expect(refused.body.errors[0].code).toBe('rate_limited');
    }
    // Health probes are never limited.
    for (let n = 0; n < 10; n++)
      await request(t.baseUrl)
        .get('/health/live')
        .set('X-Forwarded-For', '198.18.0.1')
        .expect(200);
  });
});
