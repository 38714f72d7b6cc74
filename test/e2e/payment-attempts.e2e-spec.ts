import { Client } from 'pg';
import request from 'supertest';
import { buy, buyNowUrl, DECLINED_CARD, GOOD_CARD } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { PaymentAttempts } from '../../src/modules/payment/payment-attempts';
import {
  ChargeRequest,
  ChargeResult,
  RefundRequest,
} from '../../src/modules/payment/payment-gateway';
import { TestPaymentGateway } from '../../src/modules/payment/test-payment-gateway';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The processor is called between two transactions, never inside one, and
 * a crash between the call and its outcome is settled from the stored
 * attempt (issue 25, item 6).
 */
describe('payment attempts: no processor call inside a transaction', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let oneTimeUrl: string;
  let subscriptionUrl: string;
  let db: Client;
  let gateway: TestPaymentGateway;
  let attempts: PaymentAttempts;
  let realCharge: TestPaymentGateway['charge'];
  let realRefund: TestPaymentGateway['refund'];

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Attempt Store']);
    storeId = merchant.stores[0].id;
    const oneTime = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 5000 },
      { name: 'Font' },
    );
    oneTimeUrl = await buyNowUrl(
      t.baseUrl,
      merchant.testKey,
      oneTime.product.id,
    );
    const subscription = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1200,
      },
      { name: 'Plan' },
    );
    subscriptionUrl = await buyNowUrl(
      t.baseUrl,
      merchant.testKey,
      subscription.product.id,
    );
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    gateway = t.app.get(TestPaymentGateway);
    realCharge = gateway.charge.bind(gateway);
    realRefund = gateway.refund.bind(gateway);
    attempts = t.app.get(PaymentAttempts);
  });
  afterEach(() => {
    gateway.charge = realCharge;
    gateway.refund = realRefund;
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const get = (path: string) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${merchant.testKey}`);
  const refund = (id: string, amount?: number, key?: string) => {
    const call = request(t.baseUrl)
      .post(`/v1/orders/${id}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json');
    if (key) call.set('Idempotency-Key', key);
    return call.send(
      JSON.stringify({
        data: {
          type: 'orders',
          id,
          attributes: amount === undefined ? {} : { amount },
        },
      }),
    );
  };
  const query = async <T = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ) => (await db.query(sql, params)).rows as T[];
  const orderRow = async (email: string) =>
    (
      await query<{ id: number; status: string; identifier: string }>(
        `SELECT id, status, identifier FROM orders WHERE user_email = $1`,
        [email],
      )
    )[0];
  /** A purchase's answer: paid, numbered, and the same attributes as its order's GET. */
  const expectPaidAsShown = async (data: {
    id: string;
    attributes: Record<string, unknown>;
  }) => {
    expect(data.attributes).toMatchObject({
      status: 'paid',
      order_number: expect.any(Number),
      invoice_number: expect.stringMatching(/^TEST-\d{4}-\d{6}$/),
    });
    const shown = await get(`/v1/orders/${data.id}`).expect(200);
    expect(data.attributes).toEqual(shown.body.data.attributes);
  };

  const events = async (name: string, orderId: number) =>
    (
      await query(
        `SELECT id FROM webhook_events WHERE name = $1 AND (data->>'id' = $2 OR data->'attributes'->>'order_id' = $2)`,
        [name, String(orderId)],
      )
    ).length;
  /** What a crash leaves: the attempt is old enough for the sweeper. */
  const age = (orderId: number) =>
    db.query(
      `UPDATE payment_attempts SET created_at = created_at - interval '2 minutes' WHERE subject_id = $1`,
      [orderId],
    );
  /** Connections of this database holding a transaction open right now. */
  const openTransactions = async () =>
    Number(
      (
        await query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND xact_start IS NOT NULL AND state <> 'active'`,
        )
      )[0].n,
    );
  // Embedded PGlite is one session: a second connection would wait for the
  // app's transaction instead of seeing it.
  const serverDatabase = Boolean(process.env.DATABASE_URL);

  it('charges and refunds with no transaction open, storing only the payment method', async () => {
    const seen: number[] = [];
    gateway.charge = async (charge: ChargeRequest): Promise<ChargeResult> => {
      if (serverDatabase) seen.push(await openTransactions());
      return realCharge(charge);
    };
    gateway.refund = async (refundRequest: RefundRequest) => {
      if (serverDatabase) seen.push(await openTransactions());
      return realRefund(refundRequest);
    };
    const bought = await buy(t.baseUrl, oneTimeUrl, {
      email: 'calm@example.com',
    }).expect(201);
    expect(bought.body.data.attributes.status).toBe('paid');
    const id = bought.body.data.id as string;
    await refund(id, 1000).expect(200);
    if (serverDatabase) expect(seen).toEqual([0, 0]);
    const rows = await query<{
      kind: string;
      status: string;
      amount: number;
      payment_method: string | null;
      text: string;
    }>(
      `SELECT kind, status, amount, payment_method, a::text AS text
         FROM payment_attempts a WHERE subject_id = $1 ORDER BY id`,
      [Number(id)],
    );
    expect(
      rows.map(({ kind, status, amount }) => [kind, status, amount]),
    ).toEqual([
      ['charge', 'succeeded', 5000],
      ['refund', 'succeeded', 1000],
    ]);
    expect(rows[0].payment_method).toBe('pm_test_visa_4242');
    // The card number goes no further than the gateway's tokenization.
    const dump = await query<{ text: string }>(
      `SELECT string_agg(a::text, '') AS text FROM payment_attempts a`,
    );
    expect(dump[0].text).not.toContain(GOOD_CARD);
    expect(dump[0].text).not.toContain(DECLINED_CARD);
  });

  it('settles a purchase whose process died after the charge: the sweeper pays the order once, with its subscription', async () => {
    gateway.charge = async (charge: ChargeRequest): Promise<ChargeResult> => {
      await realCharge(charge);
      // The money moved, but the answer never reached the settlement.
      throw new Error('socket hang up');
    };
    const crashed = await buy(t.baseUrl, subscriptionUrl, {
      email: 'crash@example.com',
    }).expect(503);
    expect(crashed.body.errors[0].code).toBe('payment_processor_unavailable');
    gateway.charge = realCharge;
    const order = await orderRow('crash@example.com');
    expect(order.status).toBe('pending');
    expect(await events('order_created', order.id)).toBe(0);
    const subscriptions = () =>
      query(`SELECT id FROM subscriptions WHERE order_id = $1`, [order.id]);
    expect(await subscriptions()).toHaveLength(0);
    // Too fresh for the sweeper: a request may still be settling it.
    await attempts.sweep();
    expect((await orderRow('crash@example.com')).status).toBe('pending');
    await age(order.id);
    // Two sweepers at once (two workers) settle it exactly once.
    const settled = await Promise.all([attempts.sweep(), attempts.sweep()]);
    expect(settled[0] + settled[1]).toBeGreaterThanOrEqual(1);
    const shown = await get(`/v1/orders/${order.id}`).expect(200);
    expect(shown.body.data.attributes).toMatchObject({
      status: 'paid',
      order_number: expect.any(Number),
    });
    expect(await events('order_created', order.id)).toBe(1);
    expect(await subscriptions()).toHaveLength(1);
    const [attempt] = await query<{ status: string }>(
      `SELECT status FROM payment_attempts WHERE subject_id = $1 AND kind = 'charge'`,
      [order.id],
    );
    expect(attempt.status).toBe('succeeded');
    expect(await attempts.sweep()).toBe(0);
  });

  it('answers a purchase with its order as settled, the same attributes its GET shows', async () => {
    for (const [url, email] of [
      [oneTimeUrl, 'answer-one-time@example.com'],
      [subscriptionUrl, 'answer-plan@example.com'],
    ]) {
      const bought = await buy(t.baseUrl, url, { email }).expect(201);
      await expectPaidAsShown(bought.body.data);
    }
    const declined = await buy(t.baseUrl, oneTimeUrl, {
      email: 'answer-declined@example.com',
      card_number: DECLINED_CARD,
    });
    expect(declined.status).toBe(402);
    const order = await orderRow('answer-declined@example.com');
    expect(order.status).toBe('failed');
  });

  it('answers a purchase the sweeper settled while its charge was under way with the order as the sweeper left it', async () => {
    let swept = 0;
    gateway.charge = async (charge: ChargeRequest): Promise<ChargeResult> => {
      const result = await realCharge(charge);
      gateway.charge = realCharge;
      // The request is slow to hear back: the sweeper settles it first,
      // replaying the charge under the same key.
      await db.query(
        `UPDATE payment_attempts SET created_at = created_at - interval '2 minutes'
          WHERE idempotency_key = $1`,
        [charge.reference],
      );
      swept = await attempts.sweep();
      return result;
    };
    const bought = await buy(t.baseUrl, oneTimeUrl, {
      email: 'swept-first@example.com',
    }).expect(201);
    expect(swept).toBe(1);
    await expectPaidAsShown(bought.body.data);
    expect(await events('order_created', Number(bought.body.data.id))).toBe(1);
  });

  it('settles a crashed declined purchase as failed and gives its discount use back', async () => {
    await request(t.baseUrl)
      .post('/v1/discounts')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'discounts',
            attributes: {
              name: 'Last one',
              code: 'LASTONE',
              amount: 10,
              amount_type: 'percent',
              is_limited_redemptions: true,
              max_redemptions: 1,
            },
            relationships: {
              store: { data: { type: 'stores', id: String(storeId) } },
            },
          },
        }),
      )
      .expect(201);
    gateway.charge = async (charge: ChargeRequest): Promise<ChargeResult> => {
      await realCharge(charge);
      throw new Error('connection reset');
    };
    await buy(t.baseUrl, oneTimeUrl, {
      email: 'crash-declined@example.com',
      card_number: DECLINED_CARD,
      discount_code: 'LASTONE',
    }).expect(503);
    gateway.charge = realCharge;
    const order = await orderRow('crash-declined@example.com');
    expect(order.status).toBe('pending');
    // The pending order holds the discount's only use.
    await buy(t.baseUrl, oneTimeUrl, {
      email: 'too-late@example.com',
      discount_code: 'LASTONE',
    }).expect(422);
    await age(order.id);
    expect(await attempts.sweep()).toBe(1);
    expect((await orderRow('crash-declined@example.com')).status).toBe(
      'failed',
    );
    expect(await events('order_created', order.id)).toBe(0);
    const bought = await buy(t.baseUrl, oneTimeUrl, {
      email: 'in-time@example.com',
      discount_code: 'LASTONE',
    }).expect(201);
    expect(bought.body.data.attributes.discount_total).toBe(500);
  });

  it('keeps a refund whose processor did not answer pending, counts it against what is left, and settles it once', async () => {
    const bought = await buy(t.baseUrl, oneTimeUrl, {
      email: 'refund-crash@example.com',
    }).expect(201);
    const id = bought.body.data.id as string;
    gateway.refund = async (refundRequest: RefundRequest) => {
      await realRefund(refundRequest);
      throw new Error('ETIMEDOUT');
    };
    const lost = await refund(id, 3000).expect(503);
    expect(lost.body.errors[0].code).toBe('payment_processor_unavailable');
    gateway.refund = realRefund;
    const before = await get(`/v1/orders/${id}`).expect(200);
    expect(before.body.data.attributes.refunded_amount).toBe(0);
    // 3000 of 5000 are on their way back: 2000 are left, not 5000.
    const over = await refund(id).expect(200);
    expect(over.body.data.attributes.refunded_amount).toBe(2000);
    await refund(id, 1).expect(422);
    await age(Number(id));
    expect(await attempts.sweep()).toBe(1);
    const after = await get(`/v1/orders/${id}`).expect(200);
    expect(after.body.data.attributes).toMatchObject({
      status: 'refunded',
      refunded_amount: 5000,
    });
    expect(await events('order_refunded', Number(id))).toBe(2);
  });

  it('gives 12 parallel refunds no more than was paid, and one refund for parallel repeats of one request', async () => {
    const bought = await buy(t.baseUrl, oneTimeUrl, {
      email: 'parallel-refunds@example.com',
    }).expect(201);
    const id = bought.body.data.id as string;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => refund(id, 1000)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 422)).toHaveLength(7);
    const shown = await get(`/v1/orders/${id}`).expect(200);
    expect(shown.body.data.attributes).toMatchObject({
      status: 'refunded',
      refunded_amount: 5000,
    });
    const refunds = await query(
      `SELECT id FROM payment_attempts WHERE subject_id = $1 AND kind = 'refund' AND status = 'succeeded'`,
      [Number(id)],
    );
    expect(refunds).toHaveLength(5);

    const again = await buy(t.baseUrl, oneTimeUrl, {
      email: 'repeated-refund@example.com',
    }).expect(201);
    const againId = again.body.data.id as string;
    const repeats = await Promise.all(
      Array.from({ length: 8 }, () => refund(againId, 700, 'one-refund')),
    );
    for (const answer of repeats) expect([200, 409]).toContain(answer.status);
    const replay = await refund(againId, 700, 'one-refund').expect(200);
    expect(replay.body.data.attributes.refunded_amount).toBe(700);
    const once = await query(
      `SELECT id FROM payment_attempts WHERE subject_id = $1 AND kind = 'refund'`,
      [Number(againId)],
    );
    expect(once).toHaveLength(1);
    expect(await events('order_refunded', Number(againId))).toBe(1);
  });
});
