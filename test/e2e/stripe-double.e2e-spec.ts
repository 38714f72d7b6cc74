import { createServer, Server } from 'node:http';
import Stripe from 'stripe';
import { StripeDouble } from '../support/stripe-double/stripe-double';

const SECRET_KEY = 'sk_test_double0123456789abcdef';
const WEBHOOK_SECRET = 'whsec_double0123456789abcdefABCDEF';

/**
 * The Stripe API double the payment tests run against, driven by the
 * official `stripe` package exactly as Zest's gateway drives it, and its
 * webhooks verified with `stripe.webhooks.constructEvent`.
 */
describe('Stripe API double', () => {
  let double: StripeDouble;
  let stripe: Stripe;
  let receiver: Server;
  let receiverUrl: string;
  const received: { event: Stripe.Event | null; error: string | null }[] = [];

  beforeAll(async () => {
    double = await new StripeDouble().start();
    stripe = new Stripe(SECRET_KEY, double.clientOptions());
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          received.push({
            event: stripe.webhooks.constructEvent(
              Buffer.concat(chunks),
              String(req.headers['stripe-signature']),
              WEBHOOK_SECRET,
            ),
            error: null,
          });
          res.writeHead(200).end();
        } catch (error) {
          received.push({ event: null, error: (error as Error).message });
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) =>
      receiver.listen(0, '127.0.0.1', resolve),
    );
    const address = receiver.address() as { port: number };
    receiverUrl = `http://127.0.0.1:${address.port}/webhooks/stripe/1`;
    double.sendWebhooks(SECRET_KEY, receiverUrl, WEBHOOK_SECRET);
  });
  afterAll(async () => {
    await double.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  beforeEach(() => {
    received.length = 0;
  });

  const types = () => received.map((r) => r.event?.type);

  it('charges a saved card on a customer, with Stripe’s object shapes, and signs its events', async () => {
    const customer = await stripe.customers.create({
      email: 'ada@example.com',
      name: 'Ada',
      metadata: { zest_customer_id: '7' },
    });
    expect(customer).toMatchObject({
      object: 'customer',
      email: 'ada@example.com',
      livemode: false,
    });
    const intent = await stripe.paymentIntents.create({
      amount: 1999,
      currency: 'USD',
      customer: customer.id,
      payment_method: 'pm_card_visa',
      confirm: true,
      setup_future_usage: 'off_session',
      metadata: { order: 'uuid-1' },
    });
    expect(intent).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 1999,
      amount_received: 1999,
      currency: 'usd',
      metadata: { order: 'uuid-1' },
    });
    expect(intent.client_secret).toMatch(/^pi_\w+_secret_\w+$/);
    const method = await stripe.paymentMethods.retrieve(
      intent.payment_method as string,
    );
    expect(method.customer).toBe(customer.id);
    expect(method.card).toMatchObject({ brand: 'visa', last4: '4242' });
    const charge = await stripe.charges.retrieve(
      intent.latest_charge as string,
    );
    expect(charge).toMatchObject({ paid: true, amount: 1999 });
    // The saved card is charged off session later (a renewal).
    const renewal = await stripe.paymentIntents.create({
      amount: 1999,
      currency: 'usd',
      customer: customer.id,
      payment_method: method.id,
      off_session: true,
      confirm: true,
    });
    expect(renewal.status).toBe('succeeded');
    await double.flush();
    expect(received.every((r) => r.error === null)).toBe(true);
    expect(types()).toEqual([
      'charge.succeeded',
      'payment_intent.succeeded',
      'charge.succeeded',
      'payment_intent.succeeded',
    ]);
  });

  it('plays declines and 3-D Secure: requires_action on session, authentication_required off session', async () => {
    const declined = await stripe.paymentIntents
      .create({
        amount: 500,
        currency: 'eur',
        payment_method: 'pm_card_visa_chargeDeclined',
        confirm: true,
      })
      .catch((error: unknown) => error);
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({
      statusCode: 402,
      code: 'card_declined',
      decline_code: 'generic_decline',
    });
    const challenged = await stripe.paymentIntents.create({
      amount: 500,
      currency: 'eur',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
    });
    expect(challenged.status).toBe('requires_action');
    expect(challenged.next_action?.type).toBe('use_stripe_sdk');
    double.authenticate(SECRET_KEY, challenged.id, true);
    expect((await stripe.paymentIntents.retrieve(challenged.id)).status).toBe(
      'succeeded',
    );
    const customer = await stripe.customers.create({ email: 'b@example.com' });
    const setup = await stripe.setupIntents.create({
      customer: customer.id,
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
      usage: 'off_session',
    });
    expect(setup.status).toBe('requires_action');
    double.authenticate(SECRET_KEY, setup.id, true);
    const saved = await stripe.setupIntents.retrieve(setup.id);
    expect(saved.status).toBe('succeeded');
    const offSession = await stripe.paymentIntents
      .create({
        amount: 500,
        currency: 'eur',
        customer: customer.id,
        payment_method: saved.payment_method as string,
        off_session: true,
        confirm: true,
      })
      .catch((error: unknown) => error);
    expect(offSession).toMatchObject({
      type: 'StripeCardError',
      code: 'authentication_required',
    });
    await double.flush();
    expect(types()).toEqual([
      'payment_intent.payment_failed',
      'charge.succeeded',
      'payment_intent.succeeded',
      'setup_intent.succeeded',
      'payment_intent.payment_failed',
    ]);
  });

  it('replays an Idempotency-Key, refuses it for other parameters, and refuses unknown parameters', async () => {
    const request = {
      amount: 700,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
    };
    const first = await stripe.paymentIntents.create(request, {
      idempotencyKey: 'order-42',
    });
    const again = await stripe.paymentIntents.create(request, {
      idempotencyKey: 'order-42',
    });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    const charges = double.requests.filter(
      (r) => r.idempotencyKey === 'order-42',
    );
    expect(charges).toHaveLength(2);
    const other = await stripe.paymentIntents
      .create({ ...request, amount: 701 }, { idempotencyKey: 'order-42' })
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    const unknown = await stripe.customers
      .create({ email: 'x@example.com', nickname: 'x' } as never)
      .catch((error: unknown) => error);
    expect(unknown).toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'parameter_unknown',
      param: 'nickname',
    });
    const missing = await stripe.paymentIntents
      .retrieve('pi_missing')
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
    const badKey = await new Stripe('sk_test', double.clientOptions()).customers
      .create({})
      .catch((error: unknown) => error);
    expect(badKey).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });

  it('refunds in parts, refuses more than is left, and sends dashboard refunds and disputes as events, delayed and duplicated', async () => {
    const intent = await stripe.paymentIntents.create({
      amount: 3000,
      currency: 'jpy',
      payment_method: 'pm_card_mastercard',
      confirm: true,
    });
    const part = await stripe.refunds.create(
      { payment_intent: intent.id, amount: 1000 },
      { idempotencyKey: 'refund-1' },
    );
    expect(part).toMatchObject({
      object: 'refund',
      amount: 1000,
      status: 'succeeded',
    });
    const over = await stripe.refunds
      .create({ payment_intent: intent.id, amount: 2001 })
      .catch((error: unknown) => error);
    expect(over).toMatchObject({ code: 'amount_too_large' });
    await double.flush();
    double.sendWebhooks(SECRET_KEY, receiverUrl, WEBHOOK_SECRET, {
      delayMs: 50,
      copies: 3,
    });
    try {
      received.length = 0;
      double.refundFromDashboard(SECRET_KEY, intent.latest_charge as string);
      const dispute = double.openDispute(
        SECRET_KEY,
        intent.latest_charge as string,
      );
      double.closeDispute(SECRET_KEY, dispute.id, 'lost');
      expect(received).toHaveLength(0);
      await double.flush();
      expect(received.every((r) => r.error === null)).toBe(true);
      const count = (type: string) =>
        types().filter((seen) => seen === type).length;
      expect(received).toHaveLength(9);
      expect(count('charge.refunded')).toBe(3);
      expect(count('charge.dispute.created')).toBe(3);
      expect(count('charge.dispute.closed')).toBe(3);
      // Copies of one event carry one id: a receiver stores each id once.
      expect(new Set(received.map((r) => r.event!.id)).size).toBe(3);
      const refunded = received.find(
        (r) => r.event!.type === 'charge.refunded',
      )!.event!.data.object as Stripe.Charge;
      expect(refunded).toMatchObject({
        amount_refunded: 3000,
        refunded: true,
      });
    } finally {
      double.sendWebhooks(SECRET_KEY, receiverUrl, WEBHOOK_SECRET);
    }
    // A signature made with another secret is refused by the receiver.
    double.sendWebhooks(SECRET_KEY, receiverUrl, 'whsec_wrong0123456789abcdef');
    try {
      received.length = 0;
      double.refundFromDashboard(
        SECRET_KEY,
        (
          await stripe.paymentIntents.create({
            amount: 100,
            currency: 'usd',
            payment_method: 'pm_card_visa',
            confirm: true,
          })
        ).latest_charge as string,
      );
      await double.flush();
      expect(received.filter((r) => r.error !== null).length).toBeGreaterThan(
        0,
      );
      expect(
        double.deliveries.filter((d) => d.status === 400).length,
      ).toBeGreaterThan(0);
    } finally {
      double.sendWebhooks(SECRET_KEY, receiverUrl, WEBHOOK_SECRET);
    }
  });
});
