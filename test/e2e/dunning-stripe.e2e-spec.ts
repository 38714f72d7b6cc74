import { Client } from 'pg';
import Stripe from 'stripe';
import request from 'supertest';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { buySubscription, freezeClock } from '../support/billing';
import { createMerchant, Merchant } from '../support/factories';
import { connectStripe, stripeKeys } from '../support/stripe-checkout';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';

type Attributes = Record<string, unknown>;

const at = (iso: string) => new Date(iso);
const TEST_KEYS = stripeKeys('Dunning');

/**
 * Issue 25 item 4 against the Stripe API double: renewals charge the saved
 * card off session on its Stripe Customer; a decline or
 * `authentication_required` makes the subscription past_due, the retries
 * follow DUNNING_SCHEDULE (here 1d,2d), a retry that goes through
 * reactivates it and the last failed one leaves it unpaid.
 */
describe('dunning with Stripe', () => {
  let double: StripeDouble;
  let stripe: Stripe;
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let setNow: (instant: Date) => void;
  let db: Client;
  /** Subscription ids by unit price. */
  const boughtIds: Record<number, string> = {};
  /** Their Stripe customer and saved card. */
  const cards: Record<
    number,
    { id: string; customer: string; method: string }
  > = {};

  beforeAll(async () => {
    double = await new StripeDouble().start();
    stripe = new Stripe(TEST_KEYS.secret_key, double.clientOptions());
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
      DUNNING_SCHEDULE: '1d,2d',
    });
    merchant = await createMerchant(t.app, ['Stripe Dunning Store']);
    storeId = merchant.stores[0].id;
    setNow = freezeClock(t.app, at('2027-01-10T12:00:00Z'));
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    // Sold with the test gateway (the hosted Payment Element is another
    // change); then the store connects Stripe and the cards are on Stripe.
    for (const [price, day] of [
      [1300, '2027-01-10'],
      [1700, '2027-01-20'],
    ] as const) {
      setNow(at(`${day}T12:00:00Z`));
      const bought = await buySubscription(
        t.baseUrl,
        merchant.testKey,
        storeId,
        { unit_price: price },
      );
      boughtIds[price] = bought.subscription.id;
    }
    await connectStripe(t.baseUrl, merchant.testKey, storeId, TEST_KEYS);
    cards[1300] = await subscribe(1300, 'pm_card_chargeCustomerFail');
    cards[1700] = await subscribe(1700, 'pm_card_authenticationRequired');
  });
  afterAll(async () => {
    await db.end();
    await t.close();
    await double.stop();
  });

  const sweep = (iso: string) => {
    setNow(at(iso));
    return t.app.get(RenewalService).sweep(at(iso));
  };
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
  /** Off-session PaymentIntents Stripe was asked for, for one customer. */
  const intentsOf = (customer: string) =>
    double
      .list(TEST_KEYS.secret_key, 'payment_intent')
      .filter((intent) => intent.customer === customer);
  const intentRequests = (customer: string) =>
    double.requests.filter(
      (r) =>
        r.method === 'POST' &&
        r.path === '/v1/payment_intents' &&
        r.params.customer === customer,
    );
  /** A card saved on a Stripe Customer for off-session use, as checkout leaves it. */
  const savedCard = async (card: string) => {
    const customer = await stripe.customers.create({
      email: 'renewer@example.com',
    });
    const setup = await stripe.setupIntents.create({
      customer: customer.id,
      payment_method: card,
      confirm: true,
      usage: 'off_session',
    });
    if (setup.status === 'requires_action')
      double.authenticate(TEST_KEYS.secret_key, setup.id, true);
    return { customer: customer.id, method: setup.payment_method as string };
  };
  const useCard = (id: string, method: string) =>
    db.query(`UPDATE subscriptions SET payment_method = $2 WHERE id = $1`, [
      Number(id),
      method,
    ]);
  /** The subscription of that price renews with a card saved on Stripe. */
  const subscribe = async (unitPrice: number, card: string) => {
    const saved = await savedCard(card);
    await useCard(boughtIds[unitPrice], saved.method);
    return { id: boughtIds[unitPrice], ...saved };
  };
  const outcomes = async (invoiceId: string) =>
    (
      await db.query<{ status: string; reason: string | null }>(
        `SELECT status, outcome->>'reason' AS reason FROM payment_attempts
          WHERE purpose LIKE 'subscription-%' AND subject_id = $1 ORDER BY id`,
        [Number(invoiceId)],
      )
    ).rows;

  it('retries a declined off-session renewal on the schedule; a retry that goes through reactivates it', async () => {
    const { id, customer } = cards[1300];
    await sweep('2027-02-10T12:00:00Z');
    expect(await subscription(id)).toMatchObject({
      status: 'past_due',
      renews_at: '2027-02-11T12:00:00.000000Z',
    });
    let invoice = await renewalInvoice(id);
    // The card on the invoice is the real one Stripe was asked to charge.
    expect(invoice).toMatchObject({
      status: 'pending',
      card_brand: 'visa',
      card_last_four: '0341',
      attempt_count: 1,
      next_retry_at: '2027-02-11T12:00:00.000000Z',
    });
    const [renewal] = intentRequests(customer);
    expect(renewal.params).toMatchObject({
      amount: '1300',
      currency: 'usd',
      off_session: 'true',
      confirm: 'true',
    });
    expect(renewal.idempotencyKey).toMatch(
      new RegExp(`^subscription-${id}-renewal-\\d+-0$`),
    );
    expect(await outcomes(invoice.id)).toEqual([
      { status: 'declined', reason: 'Your card was declined.' },
    ]);

    // Retry 1 by three workers at once: one PaymentIntent.
    await Promise.all([
      sweep('2027-02-11T12:00:00Z'),
      sweep('2027-02-11T12:00:00Z'),
      sweep('2027-02-11T12:00:00Z'),
    ]);
    expect(intentsOf(customer)).toHaveLength(2);
    invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({
      attempt_count: 2,
      next_retry_at: '2027-02-12T12:00:00.000000Z',
    });

    // The customer fixed the card with their bank; retry 2 goes through.
    const good = await savedCard('pm_card_visa');
    await useCard(id, good.method);
    await sweep('2027-02-12T12:00:00Z');
    expect(await subscription(id)).toMatchObject({
      status: 'active',
      card_brand: 'visa',
      card_last_four: '4242',
      renews_at: '2027-03-10T12:00:00.000000Z',
    });
    invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({
      status: 'paid',
      card_last_four: '4242',
      attempt_count: 3,
      next_retry_at: null,
    });
    const [paid] = intentsOf(good.customer);
    expect(paid).toMatchObject({ status: 'succeeded', amount: 1300 });
  });

  it('fails a renewal that needs authentication off session and leaves the subscription unpaid after the last retry', async () => {
    const { id, customer } = cards[1700];
    await sweep('2027-02-20T12:00:00Z');
    expect((await subscription(id)).status).toBe('past_due');
    const invoice = await renewalInvoice(id);
    expect(invoice).toMatchObject({
      card_brand: 'visa',
      card_last_four: '3184',
      attempt_count: 1,
    });
    expect(await outcomes(invoice.id)).toEqual([
      {
        status: 'declined',
        reason:
          'Your card was declined. This transaction requires authentication.',
      },
    ]);
    // Both retries missed by the sweep are made in order, then unpaid.
    await sweep('2027-02-25T12:00:00Z');
    expect(await subscription(id)).toMatchObject({
      status: 'unpaid',
      renews_at: '2027-03-20T12:00:00.000000Z',
    });
    expect(await renewalInvoice(id)).toMatchObject({
      status: 'pending',
      attempt_count: 3,
      next_retry_at: null,
    });
    const keys = intentRequests(customer).map((r) => r.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    await sweep('2027-04-20T12:00:00Z');
    expect(intentRequests(customer)).toHaveLength(3);
  });
});
