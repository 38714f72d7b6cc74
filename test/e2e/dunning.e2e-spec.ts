import { Client } from 'pg';
import request from 'supertest';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import {
  ChargeRequest,
  ChargeResult,
} from '../../src/modules/payment/payment-gateway';
import { PaymentAttempts } from '../../src/modules/payment/payment-attempts';
import { TestPaymentGateway } from '../../src/modules/payment/test-payment-gateway';
import { buySubscription, freezeClock, outboxEvents } from '../support/billing';
import { DECLINED_CARD, pathOf } from '../support/commerce';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

type Attributes = Record<string, unknown>;

const at = (iso: string) => new Date(iso);
const DECLINING_METHOD = 'pm_test_declined';

/**
 * Issue 25 items 4 and 6 with the test gateway: renewals charge outside
 * their transaction through payment attempts, a refused renewal is retried
 * on DUNNING_SCHEDULE (default 1, 3 and 7 days after the renewal date),
 * the customer recovers it from the portal, and a crash between the steps
 * is settled by the payment sweeper without a second charge.
 */
describe('dunning: failed renewals, retries, recovery', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let setNow: (instant: Date) => void;
  let db: Client;
  let gateway: TestPaymentGateway;
  let realCharge: TestPaymentGateway['charge'];
  /** Every charge the gateway was asked for: its reference and amount. */
  let charges: { reference: string; amount: number }[];

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Dunning Store']);
    storeId = merchant.stores[0].id;
    setNow = freezeClock(t.app, at('2027-01-10T12:00:00Z'));
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    gateway = t.app.get(TestPaymentGateway);
    realCharge = gateway.charge.bind(gateway);
  });
  beforeEach(() => {
    charges = [];
    gateway.charge = (charge: ChargeRequest): Promise<ChargeResult> => {
      charges.push({ reference: charge.reference, amount: charge.amount });
      return realCharge(charge);
    };
  });
  afterAll(async () => {
    gateway.charge = realCharge;
    await db.end();
    await t.close();
  });

  /** Billing's charges of one test's subscription (each test has its own price), not its purchase. */
  const chargesOf = (amount: number) =>
    charges.filter(
      (c) => c.amount === amount && c.reference.startsWith('subscription-'),
    );
  const sweep = (iso: string) => {
    setNow(at(iso));
    return t.app.get(RenewalService).sweep(at(iso));
  };
  const query = async <T = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ) => (await db.query(sql, params)).rows as T[];
  const api = (path: string) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
  const subscription = async (id: string) =>
    (await api(`/v1/subscriptions/${id}`)).body.data.attributes as Attributes;
  const renewalInvoice = async (id: string) => {
    const list = await api(
      `/v1/subscription-invoices?filter[subscription_id]=${id}`,
    );
    const renewal = (
      list.body.data as { id: string; attributes: Attributes }[]
    ).find((i) => i.attributes.billing_reason === 'renewal')!;
    return { id: renewal.id, ...renewal.attributes } as Attributes & {
      id: string;
    };
  };
  const attemptsOf = (invoiceId: string) =>
    query<{ status: string; idempotency_key: string; purpose: string }>(
      `SELECT status, idempotency_key, purpose FROM payment_attempts
        WHERE purpose LIKE 'subscription-%' AND subject_id = $1 ORDER BY id`,
      [Number(invoiceId)],
    );
  const eventNames = async (since: number) =>
    (await outboxEvents(t.app, storeId)).slice(since).map((e) => e.name);
  const eventCount = async () => (await outboxEvents(t.app, storeId)).length;
  const decline = (id: string) =>
    db.query(`UPDATE subscriptions SET payment_method = $2 WHERE id = $1`, [
      Number(id),
      DECLINING_METHOD,
    ]);
  const portal = (s: Attributes, card: string) =>
    request(t.baseUrl)
      .post(pathOf((s.urls as Record<string, string>).update_payment_method))
      .type('form')
      .send({ card_number: card });
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
  const serverDatabase = Boolean(process.env.DATABASE_URL);

  it('moves a refused renewal to past_due, retries it on the schedule once per slot, and recovers it from the portal', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1200 },
      { email: 'dunning@example.com' },
    );
    const id = bought.subscription.id;
    await decline(id);
    const open: number[] = [];
    let watch = serverDatabase;
    gateway.charge = async (charge: ChargeRequest): Promise<ChargeResult> => {
      charges.push({ reference: charge.reference, amount: charge.amount });
      if (watch) open.push(await openTransactions());
      return realCharge(charge);
    };

    // The renewal: invoiced and charged once, refused → past_due.
    let events = await eventCount();
    await sweep('2027-02-10T12:00:00Z');
    expect(chargesOf(1200)).toHaveLength(1);
    let s = await subscription(id);
    expect(s).toMatchObject({
      status: 'past_due',
      renews_at: '2027-02-11T12:00:00.000000Z',
    });
    let invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({
      status: 'pending',
      total: 1200,
      attempt_count: 1,
      next_retry_at: '2027-02-11T12:00:00.000000Z',
    });
    expect(await eventNames(events)).toEqual([
      'subscription_payment_failed',
      'subscription_updated',
    ]);

    // Nothing before the first retry.
    await sweep('2027-02-10T18:00:00Z');
    expect(chargesOf(1200)).toHaveLength(1);

    // Retry 1 (day 1), refused: the next one is on day 3.
    await sweep('2027-02-11T12:00:00Z');
    expect(chargesOf(1200)).toHaveLength(2);
    invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({
      status: 'pending',
      attempt_count: 2,
      next_retry_at: '2027-02-13T12:00:00.000000Z',
    });
    expect((await subscription(id)).renews_at).toBe(
      '2027-02-13T12:00:00.000000Z',
    );

    // Retry 2 (day 3) by four sweeps at once (four workers): one charge.
    // (The other sweeps' short transactions may overlap the charge here.)
    watch = false;
    await Promise.all(
      Array.from({ length: 4 }, () => sweep('2027-02-13T12:00:00Z')),
    );
    expect(chargesOf(1200)).toHaveLength(3);
    invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({
      attempt_count: 3,
      next_retry_at: '2027-02-17T12:00:00.000000Z',
    });
    watch = serverDatabase;

    // The customer types a card that is refused too: nothing changes but
    // the invoice's count; the scheduled retry stays.
    s = await subscription(id);
    const refused = await portal(s, DECLINED_CARD).expect(422);
    expect(refused.text).toContain('The card was declined');
    expect(await subscription(id)).toMatchObject({
      status: 'past_due',
      renews_at: '2027-02-17T12:00:00.000000Z',
    });
    expect(await renewalInvoice(id)).toMatchObject({
      status: 'pending',
      attempt_count: 4,
      next_retry_at: '2027-02-17T12:00:00.000000Z',
    });

    // A good card pays the open invoice at once and reactivates.
    events = await eventCount();
    await portal(s, '5555555555554444').expect(201);
    expect(await subscription(id)).toMatchObject({
      status: 'active',
      card_brand: 'mastercard',
      card_last_four: '4444',
      renews_at: '2027-03-10T12:00:00.000000Z',
    });
    expect(await renewalInvoice(id)).toMatchObject({
      status: 'paid',
      card_brand: 'mastercard',
      card_last_four: '4444',
      attempt_count: 5,
      next_retry_at: null,
    });
    expect(await eventNames(events)).toEqual([
      'subscription_payment_success',
      'subscription_payment_recovered',
      'subscription_updated',
    ]);
    const attempts = await attemptsOf(invoice.id);
    expect(attempts.map((a) => a.status)).toEqual([
      'declined',
      'declined',
      'declined',
      'declined',
      'succeeded',
    ]);
    expect(new Set(attempts.map((a) => a.idempotency_key)).size).toBe(5);
    expect(new Set(chargesOf(1200).map((c) => c.reference)).size).toBe(5);
    // No processor call was made with a transaction open.
    if (serverDatabase) expect(open).toEqual([0, 0, 0, 0]);

    // The day-7 slot finds nothing to retry; the next renewal is normal.
    await sweep('2027-02-17T12:00:00Z');
    expect(chargesOf(1200)).toHaveLength(5);
    await sweep('2027-03-10T12:00:00Z');
    expect(chargesOf(1200)).toHaveLength(6);
    expect((await subscription(id)).status).toBe('active');
  });

  it('makes a subscription unpaid after the last retry, catching up missed slots in one sweep', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 900 },
      { email: 'exhausted@example.com' },
    );
    const id = bought.subscription.id;
    await decline(id);
    await sweep('2027-02-10T12:00:00Z');
    expect((await subscription(id)).status).toBe('past_due');
    // No sweep ran for ten days: the three retries are made in order.
    await sweep('2027-02-20T12:00:00Z');
    expect(chargesOf(900)).toHaveLength(4);
    const s = await subscription(id);
    expect(s).toMatchObject({
      status: 'unpaid',
      renews_at: '2027-03-10T12:00:00.000000Z',
    });
    const invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({
      status: 'pending',
      attempt_count: 4,
      next_retry_at: null,
    });
    // Unpaid waits for the customer: sweeps charge nothing more.
    await sweep('2027-04-20T12:00:00Z');
    expect(chargesOf(900)).toHaveLength(4);
    // …who can still pay the open invoice from the portal.
    await portal(await subscription(id), '4242424242424242').expect(201);
    expect((await subscription(id)).status).toBe('active');
    expect((await renewalInvoice(id)).status).toBe('paid');
  });

  it('settles a renewal whose process died after the charge through the payment sweeper, charging once', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1500 },
      { email: 'crash-renewal@example.com' },
    );
    const id = bought.subscription.id;
    const paymentIds: string[] = [];
    gateway.charge = async (charge: ChargeRequest): Promise<ChargeResult> => {
      charges.push({ reference: charge.reference, amount: charge.amount });
      const result = await realCharge(charge);
      if (result.status === 'succeeded') paymentIds.push(result.paymentId);
      // The money moved, but the answer never reached the settlement.
      throw new Error('socket hang up');
    };
    const events = await eventCount();
    await sweep('2027-02-10T12:00:00Z');
    let invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(await attemptsOf(invoice.id)).toMatchObject([{ status: 'pending' }]);
    expect(await eventNames(events)).toEqual([]);
    // The renewal is not invoiced nor charged again by another sweep.
    await sweep('2027-02-10T12:00:00Z');
    expect(chargesOf(1500)).toHaveLength(1);

    gateway.charge = async (charge: ChargeRequest): Promise<ChargeResult> => {
      charges.push({ reference: charge.reference, amount: charge.amount });
      const result = await realCharge(charge);
      if (result.status === 'succeeded') paymentIds.push(result.paymentId);
      return result;
    };
    // Too fresh for the payment sweeper; two of them at once once it is stale.
    const attempts = t.app.get(PaymentAttempts);
    expect(await attempts.sweep()).toBe(0);
    setNow(at('2027-02-10T12:05:00Z'));
    await Promise.all([attempts.sweep(), attempts.sweep()]);
    invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({ status: 'paid', attempt_count: 1 });
    expect(await attemptsOf(invoice.id)).toMatchObject([
      { status: 'succeeded' },
    ]);
    // Every call carried the one key: the processor took one payment.
    expect(new Set(chargesOf(1500).map((c) => c.reference)).size).toBe(1);
    expect(new Set(paymentIds).size).toBe(1);
    expect(await eventNames(events)).toEqual([
      'subscription_payment_success',
      'subscription_updated',
    ]);
    expect(await subscription(id)).toMatchObject({
      status: 'active',
      renews_at: '2027-03-10T12:00:00.000000Z',
    });
  });

  it('keeps a retry whose processor was down pending: later slots wait for it, the sweeper settles it', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 700 },
      { email: 'outage@example.com' },
    );
    const id = bought.subscription.id;
    await decline(id);
    await sweep('2027-02-10T12:00:00Z');
    gateway.charge = (charge: ChargeRequest): Promise<ChargeResult> => {
      charges.push({ reference: charge.reference, amount: charge.amount });
      return Promise.reject(new Error('connect ECONNREFUSED'));
    };
    await sweep('2027-02-11T12:00:00Z');
    const invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({ attempt_count: 2, next_retry_at: null });
    // The day-3 slot passes while retry 1 is still pending: no new charge.
    await sweep('2027-02-13T12:00:00Z');
    expect(chargesOf(700)).toHaveLength(2);
    expect(await attemptsOf(invoice.id)).toMatchObject([
      { status: 'declined' },
      { status: 'pending' },
    ]);
    // The processor is back: the sweeper settles retry 1 (refused again).
    gateway.charge = realCharge;
    setNow(at('2027-02-13T12:05:00Z'));
    expect(await t.app.get(PaymentAttempts).sweep()).toBe(1);
    expect(await renewalInvoice(id)).toMatchObject({
      attempt_count: 2,
      next_retry_at: '2027-02-13T12:00:00.000000Z',
    });
    // …and the next sweep makes the due day-3 retry.
    await sweep('2027-02-13T12:06:00Z');
    expect(await renewalInvoice(id)).toMatchObject({
      attempt_count: 3,
      next_retry_at: '2027-02-17T12:00:00.000000Z',
    });
    expect((await subscription(id)).status).toBe('past_due');
  });

  it('voids a refused immediate proration charge after the change committed and carries the amount to the renewal', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 3100 },
      { email: 'proration@example.com' },
    );
    const id = bought.subscription.id;
    await decline(id);
    const items = await api(
      `/v1/subscription-items?filter[subscription_id]=${id}`,
    );
    const itemId = items.body.data[0].id as string;
    // Two seats from one, 16 of 31 days before the renewal: $16.00 now.
    setNow(at('2027-01-25T12:00:00Z'));
    const events = await eventCount();
    const patched = await request(t.baseUrl)
      .patch(`/v1/subscription-items/${itemId}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'subscription-items',
            id: itemId,
            attributes: { quantity: 2, invoice_immediately: true },
          },
        }),
      )
      .expect(200);
    expect(patched.body.data.attributes.quantity).toBe(2);
    const list = await api(
      `/v1/subscription-invoices?filter[subscription_id]=${id}`,
    );
    const updated = (list.body.data as { attributes: Attributes }[]).find(
      (i) => i.attributes.billing_reason === 'updated',
    )!.attributes;
    expect(updated).toMatchObject({
      status: 'void',
      total: 1600,
      attempt_count: 1,
      next_retry_at: null,
    });
    expect(await eventNames(events)).toEqual([
      'subscription_updated',
      'subscription_payment_failed',
      'subscription_updated',
    ]);
    expect((await subscription(id)).status).toBe('active');
    // A good card by the renewal: two seats ahead plus the carried $16.00.
    await db.query(
      `UPDATE subscriptions SET payment_method = 'pm_test_visa_4242' WHERE id = $1`,
      [Number(id)],
    );
    await sweep('2027-02-10T12:00:00Z');
    expect(await renewalInvoice(id)).toMatchObject({
      status: 'paid',
      subtotal: 6200 + 1600,
    });
  });

  it('charges the open invoice once for parallel portal submits of a good card', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1100 },
      { email: 'double-submit@example.com' },
    );
    const id = bought.subscription.id;
    await decline(id);
    await sweep('2027-02-10T12:00:00Z');
    const s = await subscription(id);
    expect(s.status).toBe('past_due');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => portal(s, '5555555555554444')),
    );
    const statuses = answers.map((answer) => answer.status);
    for (const status of statuses) expect([201, 409]).toContain(status);
    expect(statuses).toContain(201);
    expect(await subscription(id)).toMatchObject({
      status: 'active',
      card_last_four: '4444',
    });
    const invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({ status: 'paid', attempt_count: 2 });
    expect((await attemptsOf(invoice.id)).map((a) => a.status)).toEqual([
      'declined',
      'succeeded',
    ]);
    // The renewal and one recovery: no second charge of the invoice.
    expect(chargesOf(1100)).toHaveLength(2);
  });
});
