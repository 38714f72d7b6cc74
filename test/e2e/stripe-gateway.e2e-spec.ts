import Stripe from 'stripe';
import { AppError } from '../../src/common/app-error';
import { StripePaymentGateway } from '../../src/modules/payment/stripe-payment-gateway';
import { StripeDouble } from '../support/stripe-double/stripe-double';

const SECRET_KEY = 'sk_test_gateway0123456789abcdef';

/** Issue 25 item 4: the Stripe gateway against the Stripe API double. */
describe('StripePaymentGateway', () => {
  let double: StripeDouble;
  let stripe: Stripe;
  let gateway: StripePaymentGateway;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    stripe = new Stripe(SECRET_KEY, double.clientOptions());
    gateway = new StripePaymentGateway(SECRET_KEY, double.clientOptions());
  });
  afterAll(() => double.stop());

  /** A card saved on a Stripe Customer, as the checkout's SetupIntent leaves it. */
  const savedCard = async (card: string) => {
    const customer = await stripe.customers.create({ email: 'c@example.com' });
    const setup = await stripe.setupIntents.create({
      customer: customer.id,
      payment_method: card,
      confirm: true,
      usage: 'off_session',
    });
    return setup.payment_method as string;
  };
  const charge = (
    paymentMethodId: string,
    reference: string,
    amount = 1200,
    currency = 'USD',
  ) =>
    gateway.charge({
      reference,
      amount,
      currency,
      source: { paymentMethodId },
      description: 'Plan (Monthly)',
    });
  const intentsCreated = () =>
    double.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/payment_intents',
    );

  it('charges a saved card off session on its customer, once per reference', async () => {
    const method = await savedCard('pm_card_visa');
    const first = await charge(method, 'subscription-invoice-1-0');
    expect(first).toMatchObject({
      status: 'succeeded',
      method: { id: method, cardBrand: 'visa', cardLastFour: '4242' },
    });
    if (first.status !== 'succeeded') throw new Error('declined');
    expect(first.paymentId).toMatch(/^pi_/);
    const intent = await stripe.paymentIntents.retrieve(first.paymentId);
    expect(intent).toMatchObject({
      amount: 1200,
      currency: 'usd',
      status: 'succeeded',
      metadata: { zest_reference: 'subscription-invoice-1-0' },
    });
    expect(intent.customer).toMatch(/^cus_/);
    const sent = intentsCreated().at(-1)!;
    expect(sent.params).toMatchObject({ off_session: 'true', confirm: 'true' });
    expect(sent.idempotencyKey).toBe('subscription-invoice-1-0');
    // A replay (a crash before the outcome was stored) is the same payment.
    const again = await charge(method, 'subscription-invoice-1-0');
    expect(again).toEqual(first);
    const intents = double
      .list(SECRET_KEY, 'payment_intent')
      .filter(
        (pi) =>
          (pi.metadata as Record<string, string>).zest_reference ===
          'subscription-invoice-1-0',
      );
    expect(intents).toHaveLength(1);
  });

  it('sends zero-decimal currencies in Stripe units', async () => {
    const method = await savedCard('pm_card_visa');
    const yen = await charge(method, 'yen', 500, 'JPY');
    expect(yen.status).toBe('succeeded');
    expect(intentsCreated().at(-1)!.params).toMatchObject({
      amount: '500',
      currency: 'jpy',
    });
    await charge(method, 'krona', 1500, 'ISK');
    expect(intentsCreated().at(-1)!.params).toMatchObject({
      amount: '150000',
      currency: 'isk',
    });
  });

  it('answers declines and authentication_required as declined results', async () => {
    // Saved without trouble, declined at the renewal.
    const declining = await savedCard('pm_card_chargeCustomerFail');
    expect(await charge(declining, 'declined-1')).toMatchObject({
      status: 'declined',
      reason: 'Your card was declined.',
      method: { cardLastFour: '0341' },
    });
    const method = await stripe.paymentMethods.create({
      type: 'card',
      card: { token: 'tok_authenticationRequired' },
    });
    const customer = await stripe.customers.create({
      payment_method: method.id,
    });
    expect(customer.id).toMatch(/^cus_/);
    const challenged = await charge(method.id, 'renewal-3ds');
    expect(challenged).toMatchObject({ status: 'declined' });
    if (challenged.status === 'declined')
      expect(challenged.reason).toMatch(/requires authentication/);
  });

  it('refunds in parts through Stripe, idempotent per reference, and refuses more than is left', async () => {
    const method = await savedCard('pm_card_mastercard');
    const paid = await charge(method, 'order-refunds', 5000);
    if (paid.status !== 'succeeded') throw new Error('declined');
    const part = await gateway.refund({
      paymentId: paid.paymentId,
      amount: 2000,
      currency: 'USD',
      reference: 'refund-a',
    });
    expect(part.refundId).toMatch(/^re_/);
    expect(
      await gateway.refund({
        paymentId: paid.paymentId,
        amount: 2000,
        currency: 'USD',
        reference: 'refund-a',
      }),
    ).toEqual(part);
    const charged = await stripe.charges.retrieve(
      (await stripe.paymentIntents.retrieve(paid.paymentId))
        .latest_charge as string,
    );
    expect(charged.amount_refunded).toBe(2000);
    const over = await gateway
      .refund({
        paymentId: paid.paymentId,
        amount: 3001,
        currency: 'USD',
        reference: 'refund-b',
      })
      .catch((error: unknown) => error);
    expect(over).toBeInstanceOf(AppError);
    expect((over as AppError).status).toBe(422);
    expect((over as AppError).errors[0]).toMatchObject({
      code: 'stripe_request_refused',
      detail: expect.stringContaining('(amount_too_large)'),
    });
  });

  it('never takes a card number, refuses a rejected key with 422, and throws an outage as it is', async () => {
    const number = await gateway
      .paymentMethodOf()
      .catch((error: unknown) => error);
    expect((number as AppError).errors[0].code).toBe('hosted_payment_required');
    const raw = await gateway
      .charge({
        reference: 'raw',
        amount: 100,
        currency: 'USD',
        source: { cardNumber: '4242424242424242' },
        description: 'x',
      })
      .catch((error: unknown) => error);
    expect((raw as AppError).errors[0].code).toBe('hosted_payment_required');
    const rejected = await new StripePaymentGateway(
      'sk_test',
      double.clientOptions(),
    )
      .refund({ paymentId: 'pi_x', amount: 1, currency: 'USD', reference: 'r' })
      .catch((error: unknown) => error);
    expect((rejected as AppError).errors[0].code).toBe(
      'stripe_credentials_rejected',
    );
    const down = await new StripePaymentGateway(SECRET_KEY, {
      ...double.clientOptions(),
      port: 1,
      maxNetworkRetries: 0,
    })
      .refund({ paymentId: 'pi_x', amount: 1, currency: 'USD', reference: 'r' })
      .catch((error: unknown) => error);
    expect(down).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(down).not.toBeInstanceOf(AppError);
  });
});
