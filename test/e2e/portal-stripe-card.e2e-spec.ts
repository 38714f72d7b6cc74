import { Client } from 'pg';
import { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { launchChromium } from '../support/browser';
import { freezeClock, outboxEvents } from '../support/billing';
import { buyNowUrl, pathOf } from '../support/commerce';
import { createMerchant, createPricedProduct } from '../support/factories';
import {
  confirmInBrowser,
  connectStripe,
  IntentAnswer,
  intentIdOf,
  returnFromStripe,
  stripeKeys,
  stripePage,
  submitStripe,
} from '../support/stripe-checkout';
import { routeStripe } from '../support/stripe-browser';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { shoot } from '../support/screenshots';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

const LIVE_KEYS = stripeKeys('PortalCard', 'live');
const at = (iso: string) => new Date(iso);

/**
 * Issue 25 item 4's recovery for a Stripe store: a live-mode subscription
 * whose renewal and retry are declined off session is fixed by the buyer
 * on the portal's payment-method page (a SetupIntent confirmed with the
 * Payment Element, 3-D Secure included); the open invoice is then paid
 * once, off session, whether the browser's return or Stripe's
 * `setup_intent.succeeded` comes first, or both at once.
 */
describe('the portal’s Stripe card update', () => {
  let double: StripeDouble;
  let t: TestApp;
  let worker: TestWorker;
  let browser: Browser;
  let db: Client;
  let liveKey: string;
  let storeId: number;
  let checkoutUrl: string;
  let setNow: (instant: Date) => void;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
      DUNNING_SCHEDULE: '1d,2d,3d',
    });
    const merchant = await createMerchant(t.app, ['Portal Card Shop']);
    liveKey = merchant.liveKey;
    storeId = merchant.stores[0].id;
    await connectStripe(t.baseUrl, liveKey, storeId, LIVE_KEYS);
    setNow = freezeClock(t.app, at('2027-01-10T12:00:00Z'));
    const { product } = await createPricedProduct(
      t.baseUrl,
      liveKey,
      storeId,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1900,
        trial_interval_unit: 'day',
        trial_interval_quantity: 14,
      },
      { name: 'Mixing Suite' },
    );
    checkoutUrl = await buyNowUrl(t.baseUrl, liveKey, product.id);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    worker = await startTestWorker(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await db?.end();
    await t.close();
    await double.stop();
  });

  const sweep = (iso: string) => {
    setNow(at(iso));
    return t.app.get(RenewalService).sweep(at(iso));
  };
  const subscription = async (id: string) =>
    (
      await request(t.baseUrl)
        .get(`/v1/subscriptions/${id}`)
        .set('Authorization', `Bearer ${liveKey}`)
        .expect(200)
    ).body.data.attributes as Record<string, unknown> & {
      urls: Record<string, string>;
    };
  const renewalInvoice = async (id: string) =>
    (
      await db.query<{
        id: number;
        status: string;
        attempt_count: number;
        card_last_four: string | null;
        payment_reference: string | null;
      }>(
        `SELECT id, status, attempt_count, card_last_four, payment_reference
           FROM subscription_invoices WHERE subscription_id = $1 AND billing_reason = 'renewal'`,
        [Number(id)],
      )
    ).rows[0];
  /** Off-session PaymentIntents of an invoice's recovery charges at Stripe. */
  const recoveryIntents = (invoiceId: number) =>
    double
      .list(LIVE_KEYS.secret_key, 'payment_intent')
      .filter((intent) =>
        String(
          (intent.metadata as Record<string, string>).zest_reference,
        ).startsWith(`subscription-invoice-${invoiceId}-card-update-`),
      );
  const eventsOf = async (id: string) =>
    (await outboxEvents(t.app, storeId))
      .filter(
        (e) =>
          (e.type === 'subscriptions' && e.id === id) ||
          (e.type === 'subscription-invoices' &&
            String(e.attributes.subscription_id) === id),
      )
      .map((e) => e.name);
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('condition not met in 30 s');
  };

  /** A trial bought with a card that saves but declines payments; the renewal and its first retry fail. */
  async function pastDue(email: string, day: string): Promise<string> {
    setNow(at(`${day}T12:00:00Z`));
    const page = await stripePage(t.baseUrl, checkoutUrl);
    const answer = (
      await submitStripe(t.baseUrl, checkoutUrl, page.token, { email }).expect(
        200,
      )
    ).body as IntentAnswer;
    expect(answer.intent_type).toBe('setup');
    await confirmInBrowser(
      double,
      LIVE_KEYS.publishable_key,
      answer,
      '4000000000000341',
    );
    await returnFromStripe(t.baseUrl, answer).expect(303);
    const { rows } = await db.query<{ id: number }>(
      `SELECT id FROM subscriptions WHERE user_email = $1`,
      [email],
    );
    const id = String(rows[0].id);
    const trialEnd = new Date(at(`${day}T12:00:00Z`).getTime() + 14 * 864e5);
    await sweep(trialEnd.toISOString());
    await sweep(new Date(trialEnd.getTime() + 864e5).toISOString());
    expect(await subscription(id)).toMatchObject({
      status: 'past_due',
      card_last_four: '0341',
    });
    expect(await renewalInvoice(id)).toMatchObject({
      status: 'pending',
      attempt_count: 2,
    });
    return id;
  }

  /** What the page's script asks for: the SetupIntent to confirm. */
  async function setup(id: string, status = 200) {
    const page = await request(t.baseUrl)
      .get(pathOf((await subscription(id)).urls.update_payment_method))
      .expect(200);
    const action = /action="([^"]+\/setup\?[^"]+)"/.exec(page.text)![1];
    return request(t.baseUrl)
      .post(pathOf(action.replace(/&amp;/g, '&')))
      .set('Content-Type', 'application/json')
      .send({})
      .expect(status);
  }

  async function stripeTab(): Promise<Page> {
    return routeStripe(await browser.newPage(), double);
  }

  it('recovers a past_due subscription when the buyer saves a card with 3-D Secure in the browser', async () => {
    const id = await pastDue('browser-fix@example.com', '2027-01-10');
    const invoice = await renewalInvoice(id);
    const before = (await eventsOf(id)).length;
    const page = await stripeTab();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const sentToZest: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(t.baseUrl))
        sentToZest.push(`${r.url()} ${r.postData() ?? ''}`);
    });
    const response = await page.goto(
      (await subscription(id)).urls.update_payment_method,
    );
    expect(response?.headers()['content-security-policy']).toContain(
      'https://js.stripe.com',
    );
    await page.waitForSelector('[data-stand-in-card]');
    // Under the store's name, as every other hosted page.
    expect(await page.textContent('header.brand > span:last-child')).toBe(
      'Portal Card Shop',
    );
    await shoot(page, 'portal-payment-method-stripe');
    await page.fill('[data-stand-in-card]', '4000 0025 0000 3155');
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-stripe-3ds]');
    await Promise.all([
      page.waitForURL(/\/payment-method\/return\?/),
      page.click('[data-3ds=complete]'),
    ]);
    await expect(page.locator('p[role=status]').textContent()).resolves.toBe(
      'Your payment method was updated.',
    );
    expect(await page.textContent('header.brand > span:last-child')).toBe(
      'Portal Card Shop',
    );
    expect(errors).toEqual([]);
    expect(sentToZest.join('\n')).not.toContain('3155');
    await until(async () => (await renewalInvoice(id)).status === 'paid');
    expect(await subscription(id)).toMatchObject({
      status: 'active',
      card_brand: 'visa',
      card_last_four: '3155',
    });
    expect(await renewalInvoice(id)).toMatchObject({
      status: 'paid',
      attempt_count: 3,
      card_last_four: '3155',
    });
    const paid = recoveryIntents(invoice.id);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ status: 'succeeded', amount: 1900 });
    // The new card is the Stripe Customer's default for invoices.
    const method = double.find(
      LIVE_KEYS.secret_key,
      paid[0].payment_method as string,
    )!;
    const customer = double.find(
      LIVE_KEYS.secret_key,
      method.customer as string,
    )!;
    expect(customer.invoice_settings).toMatchObject({
      default_payment_method: method.id,
    });
    expect((await eventsOf(id)).slice(before)).toEqual([
      'subscription_payment_success',
      'subscription_payment_recovered',
      'subscription_updated',
    ]);
    // Back on the page: active, the new card, nothing charged again.
    await page.reload();
    await expect(page.locator('[data-card]').textContent()).resolves.toBe(
      'visa ending in 3155',
    );
    expect(recoveryIntents(invoice.id)).toHaveLength(1);
    await page.close();
  });

  it('settles from Stripe’s webhook before the browser returns, and the return changes nothing', async () => {
    const id = await pastDue('webhook-first@example.com', '2027-02-10');
    const invoice = await renewalInvoice(id);
    double.sendWebhooks(
      LIVE_KEYS.secret_key,
      `${t.baseUrl}/webhooks/stripe/${storeId}`,
      LIVE_KEYS.webhook_secret,
    );
    const answer = (await setup(id)).body as IntentAnswer;
    expect(answer.intent_type).toBe('setup');
    const intent = double.find(
      LIVE_KEYS.secret_key,
      intentIdOf(answer.client_secret),
    )!;
    expect(intent).toMatchObject({
      object: 'setup_intent',
      usage: 'off_session',
    });
    // A second click while it is in flight finds the same SetupIntent.
    expect(((await setup(id)).body as IntentAnswer).client_secret).toBe(
      answer.client_secret,
    );
    await confirmInBrowser(
      double,
      LIVE_KEYS.publishable_key,
      answer,
      '4242424242424242',
    );
    await double.flush();
    await until(async () => (await renewalInvoice(id)).status === 'paid');
    expect(await subscription(id)).toMatchObject({
      status: 'active',
      card_last_four: '4242',
    });
    const returned = await returnFromStripe(t.baseUrl, answer).expect(200);
    expect(returned.text).toContain('Your payment method was updated.');
    // Once the card is saved and the invoice paid, another card charges nothing.
    const again = (await setup(id)).body as IntentAnswer;
    expect(again.client_secret).not.toBe(answer.client_secret);
    expect(recoveryIntents(invoice.id)).toHaveLength(1);
    expect(await renewalInvoice(id)).toMatchObject({ attempt_count: 3 });
  });

  it('pays once when the webhook and three browser returns arrive at once', async () => {
    const id = await pastDue('both@example.com', '2027-03-10');
    const invoice = await renewalInvoice(id);
    double.sendWebhooks(
      LIVE_KEYS.secret_key,
      `${t.baseUrl}/webhooks/stripe/${storeId}`,
      LIVE_KEYS.webhook_secret,
      { copies: 2 },
    );
    const answer = (await setup(id)).body as IntentAnswer;
    await confirmInBrowser(
      double,
      LIVE_KEYS.publishable_key,
      answer,
      '5555555555554444',
    );
    const returns = await Promise.all(
      [1, 2, 3].map(() => returnFromStripe(t.baseUrl, answer)),
    );
    expect(returns.map((r) => r.status)).toEqual([200, 200, 200]);
    await double.flush();
    await until(async () => (await renewalInvoice(id)).status === 'paid');
    expect(recoveryIntents(invoice.id)).toHaveLength(1);
    expect(await subscription(id)).toMatchObject({
      status: 'active',
      card_brand: 'mastercard',
      card_last_four: '4444',
    });
    const names = await eventsOf(id);
    expect(
      names.filter((n) => n === 'subscription_payment_recovered'),
    ).toHaveLength(1);
  });

  it('refuses a cross-site post, a forged return link and a declined card', async () => {
    const id = await pastDue('refused@example.com', '2027-04-10');
    const page = await request(t.baseUrl)
      .get(pathOf((await subscription(id)).urls.update_payment_method))
      .expect(200);
    const action = /action="([^"]+\/setup\?[^"]+)"/
      .exec(page.text)![1]
      .replace(/&amp;/g, '&');
    const cross = await request(t.baseUrl)
      .post(pathOf(action))
      .set('Content-Type', 'application/json')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({});
    expect(cross.status).toBe(403);
    expect(cross.body.errors[0].code).toBe('cross_site_form_refused');
    const answer = (await setup(id)).body as IntentAnswer;
    const forged = new URL(answer.return_url);
    forged.searchParams.set('attempt', 'subscription-1-card-update-x');
    await request(t.baseUrl)
      .get(forged.pathname + forged.search)
      .expect(403);
    const declined = await confirmInBrowser(
      double,
      LIVE_KEYS.publishable_key,
      answer,
      '4000000000000002',
    );
    expect(declined.status).toBe(402);
    const back = await returnFromStripe(t.baseUrl, answer).expect(402);
    expect(back.text).toContain('Your card was declined.');
    expect(await subscription(id)).toMatchObject({
      status: 'past_due',
      card_last_four: '0341',
    });
    expect(await renewalInvoice(id)).toMatchObject({ attempt_count: 2 });
  });
});
