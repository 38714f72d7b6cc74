import Stripe from 'stripe';
import {
  ChargeRequest,
  ChargeResult,
  PaymentGateway,
  PaymentMethod,
  RefundRequest,
} from './payment-gateway';
import {
  hostedPaymentRequired,
  stripeCredentialsRejected,
  stripeRefused,
} from './payment.errors';
import { fromStripeAmount, toStripeAmount } from './stripe-amounts';

/**
 * Stripe's 409 while another request with the same Idempotency-Key is still
 * being processed (a timed-out call replayed by the sweeper, two settlers of
 * one attempt). That request's outcome is the answer: Stripe advises
 * retrying after a short backoff, when the stored answer is replayed.
 */
const KEY_IN_USE = 'idempotency_key_in_use';
/** The waits before each retry of a request whose key is in use (ms). */
const KEY_IN_USE_BACKOFF_MS = [500, 1_000, 2_000];

/**
 * A request whose Idempotency-Key stayed in use through every retry. Not an
 * AppError: the payment attempt stays pending (nothing is known to have
 * failed) and the payment sweeper replays it once the other request is done.
 */
export class IdempotencyKeyInUseError extends Error {
  constructor(detail: string) {
    super(
      `Stripe is still processing another request with this key: ${detail}`,
    );
    this.name = 'IdempotencyKeyInUseError';
  }
}

const keyInUse = (error: unknown): error is Stripe.errors.StripeError =>
  error instanceof Stripe.errors.StripeError && error.code === KEY_IN_USE;

/** What Zest reads of a PaymentIntent or SetupIntent. */
export interface StripeIntent {
  id: string;
  kind: 'payment' | 'setup';
  status: string;
  clientSecret: string;
  /** Stripe's units; null for a SetupIntent. */
  amount: number | null;
  /** Lower case, as Stripe has it; null for a SetupIntent. */
  currency: string | null;
  metadata: Record<string, string>;
  /** The last attempt's refusal (a decline, a failed 3-D Secure), if any. */
  lastError: string | null;
  method: PaymentMethod | null;
}

/** An intent to open for a purchase confirmed in the browser. */
export interface IntentRequest {
  /** The order's identifier: the idempotency key and `metadata.zest_order`. */
  reference: string;
  storeId: number;
  customer: string;
  /** `setup`: nothing is due now, the card is saved for later charges. */
  kind: 'payment' | 'setup';
  /** Minor units of `currency` (payments). */
  amount: number;
  currency: string;
  /** Keep the card for off-session charges (subscriptions). */
  saveCard: boolean;
  description: string;
}

/**
 * A store's Stripe account behind the PaymentGateway interface. Card
 * numbers never reach it: buyers enter cards in Stripe's Payment Element,
 * so `paymentMethodOf` refuses and `charge` takes only a saved payment
 * method (`pm_…`), charged off session (renewals) on the Stripe Customer
 * it is attached to. Every call carries the request's reference as
 * Stripe's Idempotency-Key, so a replay returns the first answer. A
 * decline (including `authentication_required`) is a `declined` result;
 * a request Stripe refuses is a 422; anything else (network, Stripe's 5xx,
 * rate limits) is thrown as is, for the payment attempt to stay pending
 * and be replayed.
 */
export class StripePaymentGateway implements PaymentGateway {
  private readonly stripe: Stripe;

  /** `options` point the client elsewhere (host, port, protocol: a test double). */
  constructor(secretKey: string, options: Stripe.StripeConfig = {}) {
    this.stripe = new Stripe(secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      appInfo: { name: 'Zest' },
      ...options,
    });
  }

  /**
   * Stripe Tax's API on the same account and client (calculations,
   * transactions, reversals), for the tax module's Stripe Tax provider.
   */
  get tax(): Stripe['tax'] {
    return this.stripe.tax;
  }

  paymentMethodOf(): Promise<PaymentMethod> {
    return Promise.reject(hostedPaymentRequired());
  }

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    if (!('paymentMethodId' in request.source)) throw hostedPaymentRequired();
    const paymentMethodId = request.source.paymentMethodId;
    return this.call(async () => {
      const stored = await this.stripe.paymentMethods.retrieve(paymentMethodId);
      const method = methodOf(stored);
      try {
        const intent = await this.stripe.paymentIntents.create(
          {
            amount: toStripeAmount(request.amount, request.currency),
            currency: request.currency.toLowerCase(),
            payment_method: paymentMethodId,
            customer: customerId(stored.customer),
            // Confirmed here, off session: no redirect can follow.
            automatic_payment_methods: {
              enabled: true,
              allow_redirects: 'never',
            },
            confirm: true,
            off_session: true,
            description: request.description,
            metadata: { zest_reference: request.reference },
          },
          { idempotencyKey: request.reference },
        );
        if (intent.status === 'succeeded')
          return { status: 'succeeded', paymentId: intent.id, method };
        return {
          status: 'declined',
          reason:
            intent.status === 'requires_action'
              ? 'The card requires authentication by the cardholder.'
              : `The payment did not go through (${intent.status}).`,
          method,
        };
      } catch (error) {
        if (error instanceof Stripe.errors.StripeCardError)
          return { status: 'declined', reason: error.message, method };
        throw error;
      }
    });
  }

  /** A Stripe Customer for a Zest customer (the key makes a retry find the first). */
  createCustomer(
    customer: { email: string; name: string; zestId: number },
    idempotencyKey: string,
  ): Promise<string> {
    return this.call(async () => {
      const created = await this.stripe.customers.create(
        {
          email: customer.email,
          name: customer.name,
          metadata: { zest_customer: String(customer.zestId) },
        },
        { idempotencyKey },
      );
      return created.id;
    });
  }

  /** Makes a payment method attached to the customer its default for invoices. */
  async setDefaultPaymentMethod(
    customer: string,
    paymentMethodId: string,
  ): Promise<void> {
    await this.call(() =>
      this.stripe.customers.update(customer, {
        invoice_settings: { default_payment_method: paymentMethodId },
      }),
    );
  }

  /**
   * Opens the PaymentIntent (or SetupIntent) the buyer confirms with the
   * Payment Element, under the order's identifier as idempotency key: a
   * repeat returns the first intent.
   */
  openIntent(request: IntentRequest): Promise<StripeIntent> {
    const metadata = {
      zest_order: request.reference,
      zest_store: String(request.storeId),
    };
    return this.call(async () => {
      if (request.kind === 'setup') {
        const intent = await this.stripe.setupIntents.create(
          {
            customer: request.customer,
            usage: 'off_session',
            automatic_payment_methods: { enabled: true },
            description: request.description,
            metadata,
          },
          { idempotencyKey: request.reference },
        );
        return setupIntentOf(intent);
      }
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: toStripeAmount(request.amount, request.currency),
          currency: request.currency.toLowerCase(),
          customer: request.customer,
          automatic_payment_methods: { enabled: true },
          ...(request.saveCard
            ? { setup_future_usage: 'off_session' as const }
            : {}),
          description: request.description,
          metadata,
        },
        { idempotencyKey: request.reference },
      );
      return paymentIntentOf(intent);
    });
  }

  /** The intent as Stripe has it now, with its payment method's card. */
  retrieveIntent(id: string): Promise<StripeIntent> {
    return this.call(async () =>
      id.startsWith('seti_')
        ? setupIntentOf(
            await this.stripe.setupIntents.retrieve(id, {
              expand: ['payment_method'],
            }),
          )
        : paymentIntentOf(
            await this.stripe.paymentIntents.retrieve(id, {
              expand: ['payment_method'],
            }),
          ),
    );
  }

  /**
   * Cancels an intent nobody may confirm any more. Stripe refuses to cancel
   * one that has succeeded (or is already canceled): the caller reads it
   * again.
   */
  async cancelIntent(id: string): Promise<void> {
    await this.call(async () => {
      if (id.startsWith('seti_')) await this.stripe.setupIntents.cancel(id);
      else
        await this.stripe.paymentIntents.cancel(id, {
          cancellation_reason: 'abandoned',
        });
    });
  }

  async refund(request: RefundRequest): Promise<{ refundId: string }> {
    return this.call(async () => {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: request.paymentId,
          amount: toStripeAmount(request.amount, request.currency),
          metadata: { zest_reference: request.reference },
        },
        { idempotencyKey: request.reference },
      );
      return { refundId: refund.id };
    });
  }

  /**
   * Every refund of a PaymentIntent that gave (or is giving) money back,
   * oldest first, in the currency's ISO minor units, with the attempt key
   * Zest sent with its own (`metadata.zest_reference`).
   */
  async refundsOf(
    paymentIntentId: string,
  ): Promise<
    { id: string; amount: number; reference: string | null; created: number }[]
  > {
    return this.call(async () => {
      const refunds: Stripe.Refund[] = [];
      for await (const refund of this.stripe.refunds.list({
        payment_intent: paymentIntentId,
        limit: 100,
      }))
        refunds.push(refund);
      return refunds
        .filter(
          (refund) =>
            refund.status === 'succeeded' || refund.status === 'pending',
        )
        .sort((a, b) => a.created - b.created || a.id.localeCompare(b.id))
        .map((refund) => ({
          id: refund.id,
          amount: fromStripeAmount(refund.amount, refund.currency),
          reference: refund.metadata?.zest_reference ?? null,
          created: refund.created,
        }));
    });
  }

  /**
   * Stripe's refusals as AppErrors (422); outages and unknowns thrown as they
   * are. A request whose Idempotency-Key is in use is retried after a
   * backoff, then thrown as IdempotencyKeyInUseError (left pending).
   */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await work();
      } catch (error) {
        if (!keyInUse(error)) throw refusal(error);
        if (retry >= KEY_IN_USE_BACKOFF_MS.length)
          throw new IdempotencyKeyInUseError(error.message);
        await new Promise((resolve) =>
          setTimeout(resolve, KEY_IN_USE_BACKOFF_MS[retry]),
        );
      }
    }
  }
}

/** A Stripe error as Zest answers it: refusals as AppErrors, the rest as it is. */
function refusal(error: unknown): unknown {
  if (
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError
  )
    return stripeCredentialsRejected();
  if (
    error instanceof Stripe.errors.StripeInvalidRequestError ||
    error instanceof Stripe.errors.StripeIdempotencyError
  )
    return stripeRefused(error.message, error.code);
  return error;
}

function customerId(
  customer: string | Stripe.Customer | Stripe.DeletedCustomer | null,
): string | undefined {
  if (!customer) return undefined;
  return typeof customer === 'string' ? customer : customer.id;
}

function expandedMethod(
  method: string | Stripe.PaymentMethod | null,
): PaymentMethod | null {
  if (!method) return null;
  if (typeof method === 'string')
    return { id: method, cardBrand: null, cardLastFour: null };
  return methodOf(method);
}

function paymentIntentOf(intent: Stripe.PaymentIntent): StripeIntent {
  return {
    id: intent.id,
    kind: 'payment',
    status: intent.status,
    clientSecret: intent.client_secret ?? '',
    amount: intent.amount,
    currency: intent.currency,
    metadata: intent.metadata ?? {},
    lastError: intent.last_payment_error?.message ?? null,
    method: expandedMethod(intent.payment_method),
  };
}

function setupIntentOf(intent: Stripe.SetupIntent): StripeIntent {
  return {
    id: intent.id,
    kind: 'setup',
    status: intent.status,
    clientSecret: intent.client_secret ?? '',
    amount: null,
    currency: null,
    metadata: intent.metadata ?? {},
    lastError: intent.last_setup_error?.message ?? null,
    method: expandedMethod(intent.payment_method),
  };
}

function methodOf(method: Stripe.PaymentMethod): PaymentMethod {
  return {
    id: method.id,
    cardBrand: method.card?.brand ?? null,
    cardLastFour: method.card?.last4 ?? null,
  };
}
