import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import Stripe from 'stripe';
import request from 'supertest';
import { StripeEventProcessing } from '../../src/modules/stripe-events/stripe-event-processing';
import { STRIPE_EVENTS_QUEUE } from '../../src/modules/stripe-events/stripe-events.queue';
import { buySubscription } from '../support/billing';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { connectStripe, stripeKeys } from '../support/stripe-checkout';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

const TEST_KEYS = stripeKeys('WebhookStore');

interface PaidOrder {
  id: string;
  total: number;
  intentId: string;
  chargeId: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 25 items 3 and 5: Stripe's events reach Zest through the signed
 * endpoint, are stored once in the inbox and processed by the worker:
 * refunds and disputes made at Stripe update orders like Zest's own.
 */
describe('Stripe webhooks in', () => {
  let double: StripeDouble;
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let storeId: number;
  let db: Client;
  let stripe: Stripe;
  const orders: PaidOrder[] = [];
  /** A subscription's first order and invoice, paid by one PaymentIntent. */
  let initial: { orderId: string; invoiceId: number; chargeId: string };
  /** An invoice paid by a PaymentIntent of its own (as a renewal is). */
  let renewal: { invoiceId: number; total: number; chargeId: string };
  let endpoint: string;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Webhook Store', 'Other Store']);
    storeId = merchant.stores[0].id;
    endpoint = `/webhooks/stripe/${storeId}`;
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    stripe = new Stripe(TEST_KEYS.secret_key, double.clientOptions());
    // Orders sold before the store connected Stripe; each then stands for
    // a payment Stripe took (the hosted checkout's PaymentIntent, which is
    // another branch's work): a PaymentIntent at the double for its total,
    // recorded as the order's payment reference.
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 5000 },
      { name: 'Easel' },
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);
    for (let i = 0; i < 6; i++) {
      const bought = await buy(t.baseUrl, url).expect(201);
      const order = bought.body.data as {
        id: string;
        attributes: { total: number };
      };
      const intent = await stripe.paymentIntents.create({
        amount: order.attributes.total,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      });
      await db.query('UPDATE orders SET payment_reference = $1 WHERE id = $2', [
        intent.id,
        order.id,
      ]);
      orders.push({
        id: order.id,
        total: order.attributes.total,
        intentId: intent.id,
        chargeId: intent.latest_charge as string,
      });
    }
    const stripeCharge = async (amount: number) => {
      const intent = await stripe.paymentIntents.create({
        amount,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      });
      return { intentId: intent.id, chargeId: intent.latest_charge as string };
    };
    const subscribe = async () => {
      const { orderId, subscription } = await buySubscription(
        t.baseUrl,
        merchant.testKey,
        storeId,
        { unit_price: 2000 },
      );
      const [invoice] = (
        await db.query(
          'SELECT id, total FROM subscription_invoices WHERE subscription_id = $1',
          [subscription.id],
        )
      ).rows as { id: number; total: number }[];
      return { orderId, invoice, charge: await stripeCharge(invoice.total) };
    };
    const first = await subscribe();
    await db.query('UPDATE orders SET payment_reference = $1 WHERE id = $2', [
      first.charge.intentId,
      first.orderId,
    ]);
    await db.query(
      'UPDATE subscription_invoices SET payment_reference = $1 WHERE id = $2',
      [first.charge.intentId, first.invoice.id],
    );
    initial = {
      orderId: first.orderId,
      invoiceId: first.invoice.id,
      chargeId: first.charge.chargeId,
    };
    const second = await subscribe();
    await db.query(
      'UPDATE subscription_invoices SET payment_reference = $1 WHERE id = $2',
      [second.charge.intentId, second.invoice.id],
    );
    renewal = {
      invoiceId: second.invoice.id,
      total: second.invoice.total,
      chargeId: second.charge.chargeId,
    };
    await connectStripe(t.baseUrl, merchant.testKey, storeId, TEST_KEYS);
    double.sendWebhooks(
      TEST_KEYS.secret_key,
      `${t.baseUrl}${endpoint}`,
      TEST_KEYS.webhook_secret,
    );
  });
  afterAll(async () => {
    await double.stop();
    await db.end();
    await worker.close();
    await t.close();
  });

  const count = async (sql: string, params: unknown[] = []) =>
    Number((await db.query(sql, params)).rows[0].n);
  const storedEvents = () => count('SELECT count(*) AS n FROM stripe_events');
  const outboxEvents = (name: string, orderId: string) =>
    count(
      `SELECT count(*) AS n FROM webhook_events WHERE name = $1 AND data->>'id' = $2`,
      [name, orderId],
    );
  /** Waits until Stripe's deliveries are in and the worker processed every stored event. */
  const processed = async () => {
    await double.flush();
    for (let i = 0; i < 300; i++) {
      const left = await count(
        'SELECT count(*) AS n FROM stripe_events WHERE processed_at IS NULL',
      );
      if (left === 0) return;
      await sleep(100);
    }
    throw new Error('Stripe events still unprocessed');
  };
  const order = async (id: string) =>
    (
      await request(t.baseUrl)
        .get(`/v1/orders/${id}`)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .expect(200)
    ).body.data.attributes as Record<string, unknown>;
  /** A signed delivery of `event` to `path`, as Stripe sends it. */
  const deliver = (
    event: Record<string, unknown>,
    secret = TEST_KEYS.webhook_secret,
    path = endpoint,
  ) => {
    const payload = JSON.stringify(event);
    return request(t.baseUrl)
      .post(path)
      .set('Content-Type', 'application/json; charset=utf-8')
      .set(
        'Stripe-Signature',
        stripe.webhooks.generateTestHeaderString({ payload, secret }),
      )
      .send(payload);
  };
  const event = (type: string, object: Record<string, unknown>) => ({
    id: `evt_test${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    livemode: false,
    created: Math.floor(Date.now() / 1000),
    api_version: Stripe.API_VERSION,
    data: { object },
  });

  it('records the events of the setup (intents, charges) as processed, acting on none', async () => {
    // The store connected Stripe after these intents: nothing was sent.
    expect(double.deliveries).toHaveLength(0);
    const ignored = event('customer.created', {
      id: 'cus_x',
      object: 'customer',
    });
    const stored = await deliver(ignored).expect(200);
    expect(stored.body).toEqual({ received: true, duplicate: false });
    const intent = event('payment_intent.succeeded', {
      id: orders[0].intentId,
      object: 'payment_intent',
    });
    await deliver(intent).expect(200);
    await processed();
    const rows = await db.query(
      'SELECT type, attempts, last_error, processed_at FROM stripe_events ORDER BY id',
    );
    expect(rows.rows).toEqual([
      expect.objectContaining({
        type: 'customer.created',
        attempts: 1,
        last_error: null,
      }),
      expect.objectContaining({
        type: 'payment_intent.succeeded',
        attempts: 1,
        last_error: null,
      }),
    ]);
    expect(rows.rows.every((row) => row.processed_at !== null)).toBe(true);
  });

  it('refuses a bad or missing signature, an unknown store and a body that is no event, writing nothing', async () => {
    const before = await storedEvents();
    const body = event('charge.refunded', {
      id: orders[0].chargeId,
      object: 'charge',
      payment_intent: orders[0].intentId,
    });
    const wrongSecret = await deliver(
      body,
      'whsec_someoneElse0123456789abcdef',
    ).expect(400);
    expect(wrongSecret.body.errors[0]).toMatchObject({
      code: 'stripe_signature_invalid',
      source: { header: 'Stripe-Signature' },
    });
    const unsigned = await request(t.baseUrl)
      .post(endpoint)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body))
      .expect(400);
    expect(unsigned.body.errors[0].code).toBe('stripe_signature_invalid');
    // The body altered after signing.
    const payload = JSON.stringify(body);
    const header = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: TEST_KEYS.webhook_secret,
    });
    const altered = await request(t.baseUrl)
      .post(endpoint)
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', header)
      .send(payload.replace(orders[0].intentId, orders[1].intentId))
      .expect(400);
    expect(altered.body.errors[0].code).toBe('stripe_signature_invalid');
    // Too old: past Stripe's tolerance (a replayed capture).
    const stale = await request(t.baseUrl)
      .post(endpoint)
      .set('Content-Type', 'application/json')
      .set(
        'Stripe-Signature',
        stripe.webhooks.generateTestHeaderString({
          payload,
          secret: TEST_KEYS.webhook_secret,
          timestamp: Math.floor(Date.now() / 1000) - 3600,
        }),
      )
      .send(payload)
      .expect(400);
    expect(stale.body.errors[0].code).toBe('stripe_signature_invalid');
    for (const path of [
      '/webhooks/stripe/999999',
      '/webhooks/stripe/abc',
      // A store that has not connected Stripe.
      `/webhooks/stripe/${merchant.stores[1].id}`,
    ]) {
      const unknown = await deliver(body, undefined, path).expect(404);
      expect(unknown.body.errors[0].code).toBe('stripe_endpoint_unknown');
    }
    // A live-mode event: the store has no live credentials.
    const live = await deliver({ ...body, livemode: true }).expect(404);
    expect(live.body.errors[0].code).toBe('stripe_endpoint_unknown');
    const notEvent = await request(t.baseUrl)
      .post(endpoint)
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', header)
      .send('[1, 2')
      .expect(400);
    expect(notEvent.body.errors[0].code).toBe('stripe_event_malformed');
    const noMode = await deliver({ id: 'evt_x', type: 'x' }).expect(400);
    expect(noMode.body.errors[0].code).toBe('stripe_event_malformed');
    expect(await storedEvents()).toBe(before);
  });

  it('records a refund made in Stripe’s dashboard, partial then full, like an API refund, each once', async () => {
    const paid = orders[0];
    double.refundFromDashboard(TEST_KEYS.secret_key, paid.chargeId, 1000);
    await processed();
    expect(await order(paid.id)).toMatchObject({
      status: 'paid',
      refunded: false,
      refunded_amount: 1000,
      refunded_at: null,
    });
    expect(await outboxEvents('order_refunded', paid.id)).toBe(1);
    // Stripe delivers the same event again (a retry), twice at once.
    const [first] = double.events(TEST_KEYS.secret_key, 'charge.refunded');
    double.resend(TEST_KEYS.secret_key, first.id, { copies: 2 });
    await processed();
    expect((await order(paid.id)).refunded_amount).toBe(1000);
    expect(await outboxEvents('order_refunded', paid.id)).toBe(1);

    double.refundFromDashboard(TEST_KEYS.secret_key, paid.chargeId);
    await processed();
    expect(await order(paid.id)).toMatchObject({
      status: 'refunded',
      refunded: true,
      refunded_amount: paid.total,
    });
    expect((await order(paid.id)).refunded_at).not.toBeNull();
    expect(await outboxEvents('order_refunded', paid.id)).toBe(2);
    const acknowledged = double.deliveries.filter(
      (d) => d.type === 'charge.refunded',
    );
    expect(acknowledged.map((d) => d.status)).toEqual([200, 200, 200, 200]);
  });

  it('does not count a Zest refund twice when Stripe echoes it back', async () => {
    const paid = orders[1];
    const refunded = await request(t.baseUrl)
      .post(`/v1/orders/${paid.id}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: paid.id, attributes: { amount: 500 } },
        }),
      )
      .expect(200);
    expect(refunded.body.data.attributes.refunded_amount).toBe(500);
    await processed();
    const echoes = double.deliveries.filter(
      (d) => d.type === 'charge.refunded',
    );
    expect(echoes.at(-1)?.status).toBe(200);
    expect((await order(paid.id)).refunded_amount).toBe(500);
    expect(await outboxEvents('order_refunded', paid.id)).toBe(1);
    // A dashboard refund after it counts, alone.
    double.refundFromDashboard(TEST_KEYS.secret_key, paid.chargeId, 300);
    await processed();
    expect((await order(paid.id)).refunded_amount).toBe(800);
    expect(await outboxEvents('order_refunded', paid.id)).toBe(2);
  });

  it('gives a refund that fails or is canceled at Stripe back to the order, once, with its event', async () => {
    const paid = orders[5];
    await request(t.baseUrl)
      .post(`/v1/orders/${paid.id}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: paid.id, attributes: { amount: 1200 } },
        }),
      )
      .expect(200);
    double.refundFromDashboard(TEST_KEYS.secret_key, paid.chargeId);
    await processed();
    expect(await order(paid.id)).toMatchObject({
      status: 'refunded',
      refunded_amount: paid.total,
    });
    const [zests, dashboards] = double
      .list(TEST_KEYS.secret_key, 'refund')
      .filter((r) => r.charge === paid.chargeId);
    expect(zests.amount).toBe(1200);

    // The dashboard's refund fails: its amount is the order's again.
    double.failRefund(TEST_KEYS.secret_key, dashboards.id, 'failed');
    await processed();
    expect(await order(paid.id)).toMatchObject({
      status: 'paid',
      refunded: false,
      refunded_amount: 1200,
      refunded_at: null,
    });
    expect(await outboxEvents('order_refund_failed', paid.id)).toBe(1);
    const attempt = await db.query(
      `SELECT status, outcome->>'reason' AS reason FROM payment_attempts WHERE idempotency_key = $1`,
      [`processor-refund-${dashboards.id}`],
    );
    expect(attempt.rows[0]).toEqual({
      status: 'failed',
      reason: 'The refund failed at Stripe (expired_or_canceled_card).',
    });
    // Delivered again, twice at once: nothing more.
    const [failed] = double.events(
      TEST_KEYS.secret_key,
      'charge.refund.updated',
    );
    double.resend(TEST_KEYS.secret_key, failed.id, { copies: 2 });
    await processed();
    expect((await order(paid.id)).refunded_amount).toBe(1200);
    expect(await outboxEvents('order_refund_failed', paid.id)).toBe(1);

    // Zest's own refund is canceled: nothing is refunded any more.
    double.failRefund(TEST_KEYS.secret_key, zests.id, 'canceled');
    await processed();
    expect(await order(paid.id)).toMatchObject({
      status: 'paid',
      refunded: false,
      refunded_amount: 0,
    });
    expect(await outboxEvents('order_refund_failed', paid.id)).toBe(2);
    // What is left can be refunded again.
    double.refundFromDashboard(TEST_KEYS.secret_key, paid.chargeId, 400);
    await processed();
    expect((await order(paid.id)).refunded_amount).toBe(400);
  });

  it('refunds a subscription invoice from Stripe’s dashboard, and tells an invoice’s own refund from the order’s on a shared payment', async () => {
    const invoice = async (id: number) =>
      (
        await request(t.baseUrl)
          .get(`/v1/subscription-invoices/${id}`)
          .set('Authorization', `Bearer ${merchant.testKey}`)
          .expect(200)
      ).body.data.attributes as Record<string, unknown>;
    const invoiceEvents = (id: number) =>
      outboxEvents('subscription_payment_refunded', String(id));
    double.refundFromDashboard(TEST_KEYS.secret_key, renewal.chargeId, 500);
    await processed();
    expect(await invoice(renewal.invoiceId)).toMatchObject({
      status: 'paid',
      refunded_amount: 500,
    });
    expect(await invoiceEvents(renewal.invoiceId)).toBe(1);
    double.refundFromDashboard(TEST_KEYS.secret_key, renewal.chargeId);
    await processed();
    expect(await invoice(renewal.invoiceId)).toMatchObject({
      status: 'refunded',
      refunded_amount: renewal.total,
    });
    expect(await invoiceEvents(renewal.invoiceId)).toBe(2);

    // The first invoice's refund through the API, echoed by Stripe on the
    // payment its order shares: counted on the invoice alone.
    await request(t.baseUrl)
      .post(`/v1/subscription-invoices/${initial.invoiceId}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'subscription-invoices',
            id: String(initial.invoiceId),
            attributes: { amount: 400 },
          },
        }),
      )
      .expect(200);
    await processed();
    expect((await invoice(initial.invoiceId)).refunded_amount).toBe(400);
    expect((await order(initial.orderId)).refunded_amount).toBe(0);
    expect(await invoiceEvents(initial.invoiceId)).toBe(1);
    expect(await outboxEvents('order_refunded', initial.orderId)).toBe(0);
    // A dashboard refund of that payment refunds the order.
    double.refundFromDashboard(TEST_KEYS.secret_key, initial.chargeId, 300);
    await processed();
    expect((await order(initial.orderId)).refunded_amount).toBe(300);
    expect((await invoice(initial.invoiceId)).refunded_amount).toBe(400);
  });

  it('stores an event delivered 3 times at once once, and marks the order disputed, then closed, each with its event', async () => {
    const paid = orders[2];
    const subscribed = await request(t.baseUrl)
      .post('/v1/webhooks')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'webhooks',
            attributes: {
              url: 'https://merchant.example.com/hooks',
              events: ['order_disputed', 'order_dispute_closed'],
              secret: 'merchant-secret-123',
            },
            relationships: {
              store: { data: { type: 'stores', id: String(storeId) } },
            },
          },
        }),
      );
    expect(subscribed.status).toBe(201);
    double.sendWebhooks(
      TEST_KEYS.secret_key,
      `${t.baseUrl}${endpoint}`,
      TEST_KEYS.webhook_secret,
      { copies: 3 },
    );
    const dispute = double.openDispute(
      TEST_KEYS.secret_key,
      paid.chargeId,
      'fraudulent',
    );
    await processed();
    const copies = double.deliveries.filter(
      (d) => d.type === 'charge.dispute.created',
    );
    expect(copies.map((d) => d.status)).toEqual([200, 200, 200]);
    expect(
      await count(
        `SELECT count(*) AS n FROM stripe_events WHERE type = 'charge.dispute.created'`,
      ),
    ).toBe(1);
    const disputed = await order(paid.id);
    expect(disputed.dispute).toEqual({
      status: 'needs_response',
      reason: 'fraudulent',
      amount: paid.total,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(await outboxEvents('order_disputed', paid.id)).toBe(1);

    double.closeDispute(TEST_KEYS.secret_key, dispute.id, 'won');
    await processed();
    expect((await order(paid.id)).dispute).toEqual({
      ...(disputed.dispute as object),
      status: 'won',
    });
    expect(await outboxEvents('order_dispute_closed', paid.id)).toBe(1);
    // The opening delivered late, after the decision, changes nothing.
    const [opened] = double.events(
      TEST_KEYS.secret_key,
      'charge.dispute.created',
    );
    await deliver({ ...opened, id: `${String(opened.id)}_late` }).expect(200);
    await processed();
    expect(((await order(paid.id)).dispute as { status: string }).status).toBe(
      'won',
    );
    expect(await outboxEvents('order_disputed', paid.id)).toBe(1);
    // Other orders are untouched.
    expect((await order(orders[3].id)).dispute).toBeNull();
    double.sendWebhooks(
      TEST_KEYS.secret_key,
      `${t.baseUrl}${endpoint}`,
      TEST_KEYS.webhook_secret,
    );
  });

  it('keeps an event whose processing threw (Stripe away) and processes it later, once', async () => {
    const paid = orders[3];
    // Every request to Stripe fails (the refunds list included) for a while.
    double.failRequests(1000);
    double.refundFromDashboard(TEST_KEYS.secret_key, paid.chargeId, 700);
    await double.flush();
    for (let i = 0; i < 100; i++) {
      const tried = await db.query(
        `SELECT attempts, last_error FROM stripe_events
          WHERE type = 'charge.refunded' AND processed_at IS NULL`,
      );
      if (tried.rows[0]?.last_error) break;
      await sleep(100);
    }
    const failed = await db.query(
      `SELECT id, attempts, last_error FROM stripe_events
        WHERE type = 'charge.refunded' AND processed_at IS NULL`,
    );
    expect(failed.rows).toHaveLength(1);
    expect(failed.rows[0].attempts).toBeGreaterThanOrEqual(1);
    expect(failed.rows[0].last_error).toEqual(expect.any(String));
    expect((await order(paid.id)).refunded_amount).toBe(0);
    double.failRequests(0);
    // Whichever comes first, the job's next retry or the sweep, processes it once.
    await worker.context.get(StripeEventProcessing).sweep(0);
    await processed();
    expect((await order(paid.id)).refunded_amount).toBe(700);
    expect(await outboxEvents('order_refunded', paid.id)).toBe(1);
  });

  it('forgets events processed more than 30 days ago, keeping the rest', async () => {
    const [oldest] = (
      await db.query('SELECT id FROM stripe_events ORDER BY id LIMIT 1')
    ).rows as { id: string }[];
    await db.query(
      `UPDATE stripe_events SET processed_at = now() - interval '31 days' WHERE id = $1`,
      [oldest.id],
    );
    const before = await storedEvents();
    await worker.context.get(StripeEventProcessing).sweep(0);
    expect(await storedEvents()).toBe(before - 1);
    expect(
      await count('SELECT count(*) AS n FROM stripe_events WHERE id = $1', [
        oldest.id,
      ]),
    ).toBe(0);
  });

  // On the embedded database the API process is the worker: nothing to stop apart.
  (process.env.DATABASE_URL ? it : it.skip)(
    'loses nothing when the worker dies between receipt and processing: the sweep processes it',
    async () => {
      const paid = orders[4];
      await worker.close();
      double.refundFromDashboard(TEST_KEYS.secret_key, paid.chargeId, 900);
      await double.flush();
      expect(double.deliveries.at(-1)?.status).toBe(200);
      // The job is lost with the worker (and Redis's copy of it).
      const queue = t.app.get<Queue>(getQueueToken(STRIPE_EVENTS_QUEUE));
      await queue.drain();
      const waiting = await db.query(
        `SELECT id FROM stripe_events WHERE processed_at IS NULL`,
      );
      expect(waiting.rows).toHaveLength(1);
      expect((await order(paid.id)).refunded_amount).toBe(0);
      worker = await startTestWorker(t);
      expect(await worker.context.get(StripeEventProcessing).sweep(0)).toBe(1);
      await processed();
      expect((await order(paid.id)).refunded_amount).toBe(900);
      expect(await outboxEvents('order_refunded', paid.id)).toBe(1);
    },
  );
});
