import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptRepository } from './payment-attempt.repository';
import { reachStripe } from './payment-calls';
import { PaymentGateways } from './payment-gateways';
import { stripeNotConnected } from './payment.errors';
import { StripeCustomerRepository } from './stripe-customer.repository';
import type {
  StripeIntent,
  StripePaymentGateway,
} from './stripe-payment-gateway';

/** The buyer an intent is opened for. */
export interface IntentBuyer {
  customerId: number;
  email: string;
  name: string;
}

/**
 * Opens the Stripe intents of hosted purchases, outside any transaction:
 * the buyer's Stripe Customer (created once per store and mode, linked to
 * the Zest customer), then a PaymentIntent for the attempt's amount, or a
 * SetupIntent when nothing is due now, under the order's identifier as
 * idempotency key, recorded on the attempt. Repeats (a double submit, a
 * reload) find the recorded intent.
 */
@Injectable()
export class StripeCheckoutIntents {
  private readonly logger = new Logger(StripeCheckoutIntents.name);

  constructor(
    private readonly gateways: PaymentGateways,
    private readonly attempts: PaymentAttemptRepository,
    private readonly customers: StripeCustomerRepository,
    private readonly clock: Clock,
  ) {}

  /** The store's publishable key of the mode; null when it takes no cards through Stripe. */
  async publishableKey(
    storeId: number,
    testMode: boolean,
  ): Promise<string | null> {
    return (
      (await this.gateways.stripeFor(storeId, testMode))?.publishableKey ?? null
    );
  }

  /** The pending intent attempt of a record (a hosted purchase's order). */
  intentAttemptOf(
    purpose: string,
    subjectId: number,
  ): Promise<PaymentAttempt | null> {
    return this.attempts.findIntentOf(purpose, subjectId);
  }

  /** An intent attempt by its key (named in a signed return URL). */
  async intentAttemptByKey(key: string): Promise<PaymentAttempt | null> {
    const attempt = await this.attempts.findByKey(key);
    return attempt?.kind === 'intent' ? attempt : null;
  }

  /**
   * Makes a payment method saved on the Zest customer's Stripe Customer
   * its default for invoices (outside any transaction). Nothing happens
   * when the customer has no Stripe Customer in the store's account.
   */
  async makeDefault(
    attempt: PaymentAttempt,
    customerId: number,
    paymentMethodId: string,
  ): Promise<void> {
    const stripe = await this.gateways.stripeFor(
      attempt.storeId,
      attempt.testMode,
    );
    if (!stripe) throw stripeNotConnected();
    const customer = await this.customers.find(
      attempt.storeId,
      attempt.testMode,
      customerId,
    );
    if (!customer) return;
    await this.reach(attempt, () =>
      stripe.gateway.setDefaultPaymentMethod(customer, paymentMethodId),
    );
  }

  /**
   * The attempt's intent, opened now unless it has one. `saveCard` keeps
   * the card for off-session charges (subscriptions).
   */
  async open(
    attempt: PaymentAttempt,
    buyer: IntentBuyer,
    saveCard: boolean,
  ): Promise<StripeIntent> {
    const stripe = await this.gateways.stripeFor(
      attempt.storeId,
      attempt.testMode,
    );
    if (!stripe) throw stripeNotConnected();
    const { gateway } = stripe;
    return this.reach(attempt, async () => {
      if (attempt.paymentId) return gateway.retrieveIntent(attempt.paymentId);
      const customer = await this.customerOf(gateway, attempt, buyer);
      const intent = await gateway.openIntent({
        reference: attempt.idempotencyKey,
        storeId: attempt.storeId,
        customer,
        kind: attempt.amount > 0 ? 'payment' : 'setup',
        amount: attempt.amount,
        currency: attempt.currency,
        saveCard,
        description: attempt.description,
      });
      const recorded = await this.attempts.recordIntent(attempt.id, intent.id);
      return recorded === intent.id
        ? intent
        : gateway.retrieveIntent(recorded ?? intent.id);
    });
  }

  private async customerOf(
    gateway: StripePaymentGateway,
    attempt: PaymentAttempt,
    buyer: IntentBuyer,
  ): Promise<string> {
    const { storeId, testMode } = attempt;
    const known = await this.customers.find(
      storeId,
      testMode,
      buyer.customerId,
    );
    if (known) return known;
    const created = await gateway.createCustomer(
      { email: buyer.email, name: buyer.name, zestId: buyer.customerId },
      `zest-customer-${storeId}-${testMode ? 'test' : 'live'}-${buyer.customerId}`,
    );
    return this.customers.insertOrFind({
      storeId,
      testMode,
      customerId: buyer.customerId,
      stripeCustomerId: created,
      createdAt: this.clock.now(),
    });
  }

  private reach<T>(attempt: PaymentAttempt, work: () => Promise<T>) {
    return reachStripe(
      this.logger,
      `Payment attempt ${attempt.id}: Stripe did not open its intent`,
      work,
    );
  }
}
