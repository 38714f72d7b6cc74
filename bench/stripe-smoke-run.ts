import Stripe from 'stripe';
import { StripePaymentGateway } from '../src/modules/payment/stripe-payment-gateway';

/**
 * What `npm run stripe:smoke` runs (bench/stripe-smoke.ts): Zest's Stripe gateway against a real Stripe
 * account in test mode (or, with STRIPE_API_BASE, any Stripe API such as
 * the tests' double): a purchase (a PaymentIntent opened as the hosted
 * checkout opens it, on a Stripe Customer, confirmed server-side with
 * Stripe's test method `pm_card_visa` in place of the buyer's browser), a
 * renewal charged off session to the saved card (and replayed under its
 * key: one charge), and a partial refund read back from Stripe's list.
 * Each step is printed; a failure exits 1. Without STRIPE_TEST_SECRET_KEY
 * it says it skipped and exits 0.
 */
export interface SmokeOptions {
  secretKey: string;
  publishableKey?: string;
  /** Another Stripe API than api.stripe.com (e.g. http://127.0.0.1:12111). */
  apiBase?: string;
  log: (line: string) => void;
}

const AMOUNT = 1999;
const CURRENCY = 'USD';

function clientOptions(apiBase: string | undefined): Stripe.StripeConfig {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  return {
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'http:' ? 80 : 443)),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
  };
}

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`Smoke check failed: ${what}`);
}

export async function runSmoke(options: SmokeOptions): Promise<void> {
  const { secretKey, publishableKey, apiBase, log } = options;
  check(
    /^(sk|rk)_test_/.test(secretKey),
    'STRIPE_TEST_SECRET_KEY must be a test-mode key (sk_test_… or rk_test_…)',
  );
  const api = apiBase ?? 'https://api.stripe.com';
  const config = clientOptions(apiBase);
  const gateway = new StripePaymentGateway(secretKey, config);
  // The buyer's side (Stripe.js in the browser), played server-side.
  const buyer = new Stripe(secretKey, config);
  const run = `smoke-${Date.now()}`;
  log(`Stripe smoke test against ${api} (run ${run})`);

  const customer = await gateway.createCustomer(
    { email: `${run}@example.com`, name: 'Zest Smoke', zestId: 0 },
    `${run}-customer`,
  );
  log(`✓ customer: ${customer}`);

  const opened = await gateway.openIntent({
    reference: `${run}-order`,
    storeId: 0,
    customer,
    kind: 'payment',
    amount: AMOUNT,
    currency: CURRENCY,
    saveCard: true,
    description: 'Zest smoke purchase',
  });
  check(opened.status === 'requires_payment_method', 'the intent is open');
  const again = await gateway.openIntent({
    reference: `${run}-order`,
    storeId: 0,
    customer,
    kind: 'payment',
    amount: AMOUNT,
    currency: CURRENCY,
    saveCard: true,
    description: 'Zest smoke purchase',
  });
  check(again.id === opened.id, 'a repeated submit gets the same intent');
  log(`✓ purchase intent: ${opened.id} (${opened.amount} ${opened.currency})`);

  if (publishableKey) {
    const read = await fetch(
      `${api}/v1/payment_intents/${opened.id}?${new URLSearchParams({
        key: publishableKey,
        client_secret: opened.clientSecret,
      }).toString()}`,
    );
    check(
      read.ok,
      `Stripe.js's read with the publishable key (${read.status})`,
    );
    log('✓ the publishable key reads it with its client secret (Stripe.js)');
  }

  const confirmed = await buyer.paymentIntents.confirm(opened.id, {
    payment_method: 'pm_card_visa',
    return_url: 'https://example.com/zest-smoke/return',
  });
  check(confirmed.status === 'succeeded', `confirmed: ${confirmed.status}`);
  const paid = await gateway.retrieveIntent(opened.id);
  check(paid.status === 'succeeded' && paid.method, 'Zest reads it paid');
  check(
    paid.method.cardBrand === 'visa' && paid.method.cardLastFour === '4242',
    'the card is visa 4242',
  );
  log(
    `✓ purchase paid: ${paid.method.cardBrand} ${paid.method.cardLastFour}, method ${paid.method.id} saved`,
  );

  const renewal = {
    reference: `${run}-renewal-1`,
    amount: AMOUNT,
    currency: CURRENCY,
    source: { paymentMethodId: paid.method.id },
    description: 'Zest smoke renewal',
  };
  const charged = await gateway.charge(renewal);
  check(
    charged.status === 'succeeded',
    `renewal: ${charged.status === 'declined' ? charged.reason : ''}`,
  );
  const replayed = await gateway.charge(renewal);
  check(
    replayed.status === 'succeeded' && replayed.paymentId === charged.paymentId,
    'a replayed renewal charges once',
  );
  log(`✓ renewal charged off session: ${charged.paymentId} (replay: same)`);

  const { refundId } = await gateway.refund({
    paymentId: charged.paymentId,
    amount: 500,
    currency: CURRENCY,
    reference: `${run}-refund-1`,
  });
  const refunds = await gateway.refundsOf(charged.paymentId);
  check(
    refunds.some(
      (r) =>
        r.id === refundId &&
        r.amount === 500 &&
        r.reference === `${run}-refund-1`,
    ),
    'the refund is listed with its key',
  );
  log(`✓ refund: ${refundId} (500 of ${AMOUNT}), listed by Stripe`);
  log('Stripe smoke test passed.');
}
