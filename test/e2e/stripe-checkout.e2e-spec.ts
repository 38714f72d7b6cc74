import { Client } from 'pg';
import request from 'supertest';
import { Clock } from '../../src/common/clock';
import { PaymentAttempts } from '../../src/modules/payment/payment-attempts';
import { StoreService } from '../../src/modules/store/store.service';
import { freezeClock, outboxEvents } from '../support/billing';
import { buy, buyNowUrl, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import {
  answerChallenge,
  confirmInBrowser,
  connectStripe,
  IntentAnswer,
  intentIdOf,
  returnFromStripe,
  stripeKeys,
  stripePage,
  submitStripe,
} from '../support/stripe-checkout';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker } from '../support/worker';

const USD_KEYS = stripeKeys('CheckoutUsd');
const JPY_KEYS = stripeKeys('CheckoutJpy');

/**
 * Issue 25 item 2: a store with Stripe credentials takes cards on its
 * hosted page through the Payment Element. The page's submit writes the
 * pending order and opens a PaymentIntent (or SetupIntent) at Stripe (the
 * double); the buyer confirms it in the browser (played here as Stripe.js
 * does, with the publishable key); the return route and settleIntent
 * settle it exactly once.
 */
describe('Hosted checkout with the Stripe Payment Element', () => {
  let double: StripeDouble;
  let t: TestApp;
  let merchant: Merchant;
  let db: Client;
  let usdStore: number;
  let jpyStore: number;
  let oneTimeUrl: string;

  const product = async (
    storeId: number,
    price: Record<string, unknown>,
    name = 'Brushes',
  ) => {
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      price,
      { name },
    );
    return buyNowUrl(t.baseUrl, merchant.testKey, product.id);
  };

  const orderOf = async (identifier: string) =>
    (
      await db.query(
        `SELECT id, status, failure_reason, payment_reference, total FROM orders WHERE identifier = $1`,
        [identifier],
      )
    ).rows as {
      id: number;
      status: string;
      failure_reason: string | null;
      payment_reference: string | null;
      total: number;
    }[];

  const identifierOf = (answer: IntentAnswer) =>
    /\/my-orders\/([0-9a-f-]{36})\/return/.exec(answer.return_url)![1];

  /** Page, submit: the intent to confirm. */
  const begin = async (url: string, fields: Record<string, string> = {}) => {
    const page = await stripePage(t.baseUrl, url);
    const submitted = await submitStripe(t.baseUrl, url, page.token, fields);
    expect(submitted.status).toBe(200);
    return submitted.body as IntentAnswer;
  };

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    merchant = await createMerchant(t.app, ['Stripe Shop']);
    usdStore = merchant.stores[0].id;
    jpyStore = (
      await t.app.get(StoreService).create({
        userId: merchant.userId,
        name: 'Yen Shop',
        currency: 'JPY',
      })
    ).id;
    await connectStripe(t.baseUrl, merchant.testKey, usdStore, USD_KEYS);
    await connectStripe(t.baseUrl, merchant.testKey, jpyStore, JPY_KEYS);
    oneTimeUrl = await product(usdStore, { unit_price: 1500 });
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
    await double.stop();
  });

  it('renders the Payment Element with Stripe.js and a CSP that allows it, and no card field', async () => {
    const page = await stripePage(t.baseUrl, oneTimeUrl);
    expect(page.html).toContain('<script src="https://js.stripe.com/v3/">');
    expect(page.html).toContain(
      `data-stripe-key="${USD_KEYS.publishable_key}"`,
    );
    expect(page.html).toContain('data-mode="payment"');
    expect(page.html).toContain('data-amount="1500"');
    expect(page.html).toContain('data-currency="usd"');
    expect(page.html).toContain('id="payment-element"');
    expect(page.html).not.toContain('name="card_number"');
    expect(page.html).not.toContain(USD_KEYS.secret_key);
    expect(page.csp).toContain('script-src https://js.stripe.com');
    expect(page.csp).toContain('frame-src https://js.stripe.com');
    expect(page.csp).toContain("connect-src 'self' https://api.stripe.com");
  });

  it('sells a one-time product: PaymentIntent for the total, confirmed in the browser, paid on return with the real card', async () => {
    const answer = await begin(oneTimeUrl);
    expect(answer.intent_type).toBe('payment');
    const identifier = identifierOf(answer);
    const [pending] = await orderOf(identifier);
    expect(pending.status).toBe('pending');
    const intent = double.find(
      USD_KEYS.secret_key,
      intentIdOf(answer.client_secret),
    )!;
    expect(intent).toMatchObject({
      object: 'payment_intent',
      amount: 1500,
      currency: 'usd',
      setup_future_usage: null,
      metadata: { zest_order: identifier, zest_store: String(usdStore) },
      status: 'requires_payment_method',
    });
    expect(intent.customer).toMatch(/^cus_/);
    const created = double.requests.find(
      (r) => r.path === '/v1/payment_intents' && r.method === 'POST',
    )!;
    expect(created.idempotencyKey).toBe(identifier);

    const confirmed = await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      answer,
      '4242 4242 4242 4242',
    );
    expect(confirmed.body.status).toBe('succeeded');
    const back = await returnFromStripe(t.baseUrl, answer).expect(303);
    expect(back.headers.location).toContain(`/my-orders/${identifier}?`);
    const [paid] = await orderOf(identifier);
    expect(paid.status).toBe('paid');
    expect(paid.payment_reference).toBe(intent.id);
    const attempt = (
      await db.query(
        `SELECT status, outcome FROM payment_attempts WHERE idempotency_key = $1`,
        [identifier],
      )
    ).rows[0];
    expect(attempt.status).toBe('succeeded');
    expect(attempt.outcome.method).toMatchObject({
      cardBrand: 'visa',
      cardLastFour: '4242',
    });
    const events = (await outboxEvents(t.app, usdStore)).filter(
      (e) => e.name === 'order_created' && e.id === String(paid.id),
    );
    expect(events).toHaveLength(1);
    // A reload of the return page settles nothing twice.
    await returnFromStripe(t.baseUrl, answer).expect(303);
    expect(
      (await outboxEvents(t.app, usdStore)).filter(
        (e) => e.name === 'order_created' && e.id === String(paid.id),
      ),
    ).toHaveLength(1);

    // The same buyer's next purchase reuses the Stripe Customer.
    const again = await begin(oneTimeUrl);
    const second = double.find(
      USD_KEYS.secret_key,
      intentIdOf(again.client_secret),
    )!;
    expect(second.customer).toBe(intent.customer);
  });

  it('re-prices a page submitted again with another quantity: the intent charged is always the current quote', async () => {
    const url = await product(usdStore, { unit_price: 1300 }, 'Repriced');
    const page = await stripePage(t.baseUrl, url);
    const submit = async (quantity: string) =>
      (
        await submitStripe(t.baseUrl, url, page.token, {
          email: 'repriced@example.com',
          quantity,
        }).expect(200)
      ).body as IntentAnswer;
    const intentOf = (answer: IntentAnswer) =>
      double.find(USD_KEYS.secret_key, intentIdOf(answer.client_secret))!;
    const first = await submit('1');
    expect(intentOf(first).amount).toBe(1300);
    // The buyer raises the quantity and pays again from the same page, twice at once.
    const [more, again] = await Promise.all([submit('3'), submit('3')]);
    expect(again.client_secret).toBe(more.client_secret);
    expect(more.client_secret).not.toBe(first.client_secret);
    const [repriced] = await orderOf(identifierOf(more));
    expect(repriced).toMatchObject({ status: 'pending', total: 3900 });
    expect(intentOf(more).amount).toBe(3900);
    // Back to one: the first order and intent again.
    expect((await submit('1')).client_secret).toBe(first.client_secret);
    const last = await submit('3');
    expect(last.client_secret).toBe(more.client_secret);
    await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      last,
      '4242424242424242',
    );
    await returnFromStripe(t.baseUrl, last).expect(303);
    expect((await orderOf(identifierOf(last)))[0]).toMatchObject({
      status: 'paid',
      total: 3900,
    });
    expect(intentOf(last)).toMatchObject({ status: 'succeeded', amount: 3900 });
    // The first terms' intent was never confirmed: nothing charged for it.
    expect(intentOf(first).status).toBe('requires_payment_method');
    expect((await orderOf(identifierOf(first)))[0].status).toBe('pending');
  });

  it('never reuses a Stripe Customer of the account a store switched away from', async () => {
    const first = stripeKeys('SwitchOld');
    const second = stripeKeys('SwitchNew');
    const store = await t.app.get(StoreService).create({
      userId: merchant.userId,
      name: 'Switching Shop',
    });
    await connectStripe(t.baseUrl, merchant.testKey, store.id, first);
    const url = await product(store.id, { unit_price: 1100 }, 'Switch');
    const before = await begin(url, { email: 'switcher@example.com' });
    const old = double.find(
      first.secret_key,
      intentIdOf(before.client_secret),
    )!;
    expect(old.customer).toMatch(/^cus_/);
    // The same account again (a new webhook secret): the link stays.
    await connectStripe(t.baseUrl, merchant.testKey, store.id, {
      ...first,
      webhook_secret: 'whsec_SwitchOldRotated0123456789abcd',
    });
    const same = await begin(url, { email: 'switcher@example.com' });
    expect(
      double.find(first.secret_key, intentIdOf(same.client_secret))!.customer,
    ).toBe(old.customer);
    // Another account: a Customer of that account, not the old id.
    await connectStripe(t.baseUrl, merchant.testKey, store.id, second);
    const after = await begin(url, { email: 'switcher@example.com' });
    const intent = double.find(
      second.secret_key,
      intentIdOf(after.client_secret),
    )!;
    expect(intent.customer).toMatch(/^cus_/);
    expect(intent.customer).not.toBe(old.customer);
    expect(
      double.find(second.secret_key, intent.customer as string),
    ).toMatchObject({ object: 'customer', email: 'switcher@example.com' });
  });

  it('opens a SetupIntent for a subscription with a free trial and saves the card on the subscription', async () => {
    const url = await product(
      usdStore,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 900,
        trial_interval_unit: 'day',
        trial_interval_quantity: 14,
      },
      'Trial Plan',
    );
    const page = await stripePage(t.baseUrl, url);
    expect(page.html).toContain('data-mode="setup"');
    const answer = (await submitStripe(t.baseUrl, url, page.token).expect(200))
      .body as IntentAnswer;
    expect(answer.intent_type).toBe('setup');
    const setup = double.find(
      USD_KEYS.secret_key,
      intentIdOf(answer.client_secret),
    )!;
    expect(setup).toMatchObject({
      object: 'setup_intent',
      usage: 'off_session',
      metadata: { zest_order: identifierOf(answer) },
    });
    expect(setup.customer).toMatch(/^cus_/);
    await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      answer,
      '5555555555554444',
    );
    await returnFromStripe(t.baseUrl, answer).expect(303);
    const [order] = await orderOf(identifierOf(answer));
    expect(order).toMatchObject({ status: 'paid', total: 0 });
    const subscription = (
      await request(t.baseUrl)
        .get(`/v1/subscriptions?filter[order_id]=${order.id}`)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .expect(200)
    ).body.data[0];
    expect(subscription.attributes).toMatchObject({
      status: 'on_trial',
      card_brand: 'mastercard',
      card_last_four: '4444',
    });
    const method = double.find(
      USD_KEYS.secret_key,
      setup.payment_method as string,
    )!;
    expect(method.customer).toBe(setup.customer);
  });

  it('opens a SetupIntent for a metered plan (nothing due at signup)', async () => {
    const url = await product(
      usdStore,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 10,
        usage_aggregation: 'sum',
      },
      'Metered Plan',
    );
    const answer = await begin(url);
    expect(answer.intent_type).toBe('setup');
    await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      answer,
      '4242424242424242',
    );
    await returnFromStripe(t.baseUrl, answer).expect(303);
    expect((await orderOf(identifierOf(answer)))[0]).toMatchObject({
      status: 'paid',
      total: 0,
    });
  });

  it('saves the card for renewals on a subscription paid now (setup_future_usage off_session)', async () => {
    const url = await product(
      usdStore,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1200,
      },
      'Monthly Plan',
    );
    const answer = await begin(url);
    expect(answer.intent_type).toBe('payment');
    expect(
      double.find(USD_KEYS.secret_key, intentIdOf(answer.client_secret)),
    ).toMatchObject({ amount: 1200, setup_future_usage: 'off_session' });
  });

  it('records a declined card as a failed order, cancels its intent and shows the checkout again with the reason', async () => {
    const answer = await begin(oneTimeUrl);
    const confirmed = await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      answer,
      '4000000000000002',
    );
    expect(confirmed.status).toBe(402);
    const back = await returnFromStripe(t.baseUrl, answer).expect(402);
    expect(back.text).toContain('Your card was declined.');
    expect(back.text).toContain('name="submission"');
    expect(back.text).toContain('value="stripe-buyer@example.com"');
    const [failed] = await orderOf(identifierOf(answer));
    expect(failed).toMatchObject({
      status: 'failed',
      failure_reason: 'Your card was declined.',
    });
    expect(
      double.find(USD_KEYS.secret_key, intentIdOf(answer.client_secret))!
        .status,
    ).toBe('canceled');
    // The spent form cannot be paid again; the fresh one can.
    const token = /name="submission" value="([^"]+)"/.exec(back.text)![1];
    const retry = await submitStripe(t.baseUrl, oneTimeUrl, token).expect(200);
    expect(identifierOf(retry.body as IntentAnswer)).not.toBe(
      identifierOf(answer),
    );
  });

  it('waits for 3-D Secure: pending until the challenge is completed, failed when it is abandoned', async () => {
    const completed = await begin(oneTimeUrl);
    const confirmed = await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      completed,
      '4000002760003184',
    );
    expect(confirmed.body.status).toBe('requires_action');
    await returnFromStripe(t.baseUrl, completed).expect(202);
    expect((await orderOf(identifierOf(completed)))[0].status).toBe('pending');
    expect(
      await answerChallenge(
        double,
        USD_KEYS.publishable_key,
        completed,
        'complete',
      ),
    ).toBe(200);
    await returnFromStripe(t.baseUrl, completed).expect(303);
    expect((await orderOf(identifierOf(completed)))[0].status).toBe('paid');

    const abandoned = await begin(oneTimeUrl);
    await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      abandoned,
      '4000002760003184',
    );
    expect(
      await answerChallenge(
        double,
        USD_KEYS.publishable_key,
        abandoned,
        'fail',
      ),
    ).toBe(402);
    const back = await returnFromStripe(t.baseUrl, abandoned).expect(402);
    expect(back.text).toContain('failed authentication');
    expect((await orderOf(identifierOf(abandoned)))[0].status).toBe('failed');
  });

  it('writes one order, one attempt and one PaymentIntent for 20 parallel submits of one page', async () => {
    const page = await stripePage(t.baseUrl, oneTimeUrl);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        submitStripe(t.baseUrl, oneTimeUrl, page.token, {
          email: 'parallel@example.com',
        }),
      ),
    );
    for (const answer of answers)
      expect([answer.status, answer.text]).toEqual([200, expect.anything()]);
    const secrets = new Set(answers.map((a) => a.body.client_secret));
    expect(secrets.size).toBe(1);
    const identifier = identifierOf(answers[0].body as IntentAnswer);
    expect(await orderOf(identifier)).toHaveLength(1);
    const attempts = await db.query(
      `SELECT count(*)::int AS n FROM payment_attempts a JOIN orders o ON o.id = a.subject_id WHERE o.identifier = $1`,
      [identifier],
    );
    expect(attempts.rows[0].n).toBe(1);
    expect(
      double
        .list(USD_KEYS.secret_key, 'payment_intent')
        .filter(
          (pi) =>
            (pi.metadata as Record<string, string>).zest_order === identifier,
        ),
    ).toHaveLength(1);
  });

  it('settles once when the browser return and the webhook handler (settleIntent) race', async () => {
    const answer = await begin(oneTimeUrl);
    await confirmInBrowser(
      double,
      USD_KEYS.publishable_key,
      answer,
      '4242424242424242',
    );
    const attempts = t.app.get(PaymentAttempts);
    const intentId = intentIdOf(answer.client_secret);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        returnFromStripe(t.baseUrl, answer).then((r) => r.status),
      ),
      ...Array.from({ length: 5 }, () =>
        attempts.settleIntent(usdStore, true, intentId).then(() => 'settled'),
      ),
    ]);
    expect(results.filter((r) => r === 303)).toHaveLength(5);
    const [order] = await orderOf(identifierOf(answer));
    expect(order.status).toBe('paid');
    expect(
      (await outboxEvents(t.app, usdStore)).filter(
        (e) => e.name === 'order_created' && e.id === String(order.id),
      ),
    ).toHaveLength(1);
  });

  it('settles once when Stripe’s webhook, delivered 3 times, comes before the browser returns', async () => {
    const keys = stripeKeys('CheckoutHooks');
    const store = await t.app.get(StoreService).create({
      userId: merchant.userId,
      name: 'Hooked Shop',
    });
    await connectStripe(t.baseUrl, merchant.testKey, store.id, keys);
    const url = await product(store.id, { unit_price: 700 }, 'Hooked');
    const worker = await startTestWorker(t);
    try {
      double.sendWebhooks(
        keys.secret_key,
        `${t.baseUrl}/webhooks/stripe/${store.id}`,
        keys.webhook_secret,
        { copies: 3 },
      );
      const answer = await begin(url);
      await confirmInBrowser(
        double,
        keys.publishable_key,
        answer,
        '4242424242424242',
      );
      await double.flush();
      const identifier = identifierOf(answer);
      for (let i = 0; i < 300; i++) {
        if ((await orderOf(identifier))[0].status === 'paid') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const [order] = await orderOf(identifier);
      expect(order.status).toBe('paid');
      // The browser comes back after the webhook: the receipt, nothing new.
      await returnFromStripe(t.baseUrl, answer).expect(303);
      expect(
        (await outboxEvents(t.app, store.id)).filter(
          (e) => e.name === 'order_created' && e.id === String(order.id),
        ),
      ).toHaveLength(1);
    } finally {
      await worker.close();
    }
  });

  it('refuses an unknown intent, a forged submission token and the JSON purchase route, writing nothing', async () => {
    // An intent Zest did not open (another integration's) is ignored.
    await expect(
      t.app.get(PaymentAttempts).settleIntent(usdStore, true, 'pi_unknown'),
    ).resolves.toBeUndefined();
    const before = (await db.query(`SELECT count(*)::int AS n FROM orders`))
      .rows[0].n;
    const forged = await submitStripe(
      t.baseUrl,
      oneTimeUrl,
      '00000000-0000-4000-8000-000000000000.' + '0'.repeat(64),
    ).expect(422);
    expect(forged.body.errors[0].code).toBe('checkout_submission_invalid');
    for (const card_number of ['4242424242424242', undefined]) {
      const json = await buy(t.baseUrl, oneTimeUrl, { card_number }).expect(
        422,
      );
      expect(json.body.errors[0].code).toBe('hosted_payment_required');
    }
    // The page's form posted without its script (no JavaScript).
    const plain = await request(t.baseUrl)
      .post(pathOf(oneTimeUrl))
      .type('form')
      .send({
        email: 'nojs@example.com',
        name: 'No Script',
        'billing_address[country]': 'US',
        intent: 'pay',
      })
      .expect(422);
    expect(plain.text).toContain('Paying by card needs JavaScript');
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM orders`)).rows[0].n,
    ).toBe(before);
  });

  it('charges a zero-decimal currency in Stripe units (JPY 500 is 500)', async () => {
    const url = await product(jpyStore, { unit_price: 500 }, 'Yen Brushes');
    const page = await stripePage(t.baseUrl, url);
    expect(page.html).toContain('data-amount="500"');
    expect(page.html).toContain('data-currency="jpy"');
    const answer = (await submitStripe(t.baseUrl, url, page.token).expect(200))
      .body as IntentAnswer;
    expect(
      double.find(JPY_KEYS.secret_key, intentIdOf(answer.client_secret)),
    ).toMatchObject({ amount: 500, currency: 'jpy' });
    await confirmInBrowser(
      double,
      JPY_KEYS.publishable_key,
      answer,
      '4242424242424242',
    );
    await returnFromStripe(t.baseUrl, answer).expect(303);
    expect((await orderOf(identifierOf(answer)))[0]).toMatchObject({
      status: 'paid',
      total: 500,
    });
  });

  it('sweeps abandoned intents: left alone while young, canceled and failed after the timeout', async () => {
    const answer = await begin(oneTimeUrl);
    const attempts = t.app.get(PaymentAttempts);
    const identifier = identifierOf(answer);
    const clock = t.app.get(Clock);
    const realNow = clock.now.bind(clock);
    const setNow = freezeClock(t.app, new Date(Date.now() + 5 * 60_000));
    try {
      await attempts.sweep();
      expect((await orderOf(identifier))[0].status).toBe('pending');
      setNow(new Date(Date.now() + 25 * 60 * 60_000));
      await attempts.sweep();
      const [order] = await orderOf(identifier);
      expect(order).toMatchObject({
        status: 'failed',
        failure_reason: 'The payment was not completed in time.',
      });
      expect(
        double.find(USD_KEYS.secret_key, intentIdOf(answer.client_secret))!
          .status,
      ).toBe('canceled');
    } finally {
      clock.now = realNow;
    }
  });
});
