import { Inject, Injectable, Optional } from '@nestjs/common';
import type Stripe from 'stripe';
import { EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { LIVE_PAYMENT_GATEWAY, PaymentGateway } from './payment-gateway';
import { StripeCredentialsService } from './stripe-credentials.service';
import { StripePaymentGateway } from './stripe-payment-gateway';
import { TestPaymentGateway } from './test-payment-gateway';
import { livePaymentsNotConfigured } from './payment.errors';

/** A payment Stripe took: a PaymentIntent's id. */
const STRIPE_PAYMENT = /^pi_/;

/** Picks the processor of a store's mode, or of a payment. */
@Injectable()
export class PaymentGateways {
  private readonly stripeOptions: Stripe.StripeConfig;
  /** One client per secret key: clients keep their connections alive. */
  private readonly stripeGateways = new Map<string, StripePaymentGateway>();

  constructor(
    private readonly test: TestPaymentGateway,
    private readonly credentials: StripeCredentialsService,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional()
    @Inject(LIVE_PAYMENT_GATEWAY)
    private readonly live: PaymentGateway | null,
  ) {
    const api = config.money.stripeApiUrl;
    const url = api ? new URL(api) : null;
    this.stripeOptions = url
      ? {
          host: url.hostname,
          port: Number(url.port || (url.protocol === 'http:' ? 80 : 443)),
          protocol: url.protocol === 'http:' ? 'http' : 'https',
        }
      : {};
  }

  /**
   * The store's own Stripe account of the mode when it is connected;
   * otherwise the built-in test gateway in test mode, and in live mode the
   * operator's LIVE_PAYMENT_GATEWAY if one is provided, else 422. Pass the
   * transaction's manager when one is open.
   */
  async forStore(
    storeId: number,
    testMode: boolean,
    manager?: EntityManager,
  ): Promise<PaymentGateway> {
    const stripe = await this.stripeFor(storeId, testMode, manager);
    return stripe ? stripe.gateway : this.builtIn(testMode);
  }

  /** The store's own Stripe account of the mode; null when it has not connected one. */
  async stripeOf(
    storeId: number,
    testMode: boolean,
    manager?: EntityManager,
  ): Promise<StripePaymentGateway | null> {
    return (await this.stripeFor(storeId, testMode, manager))?.gateway ?? null;
  }

  /**
   * The store's own Stripe account of the mode with its publishable key
   * (for Stripe.js on the hosted page); null when it is not connected.
   */
  async stripeFor(
    storeId: number,
    testMode: boolean,
    manager?: EntityManager,
  ): Promise<{ gateway: StripePaymentGateway; publishableKey: string } | null> {
    const keys = await this.credentials.keysOf(storeId, testMode, manager);
    if (!keys) return null;
    let gateway = this.stripeGateways.get(keys.secretKey);
    if (!gateway) {
      gateway = new StripePaymentGateway(keys.secretKey, this.stripeOptions);
      this.stripeGateways.set(keys.secretKey, gateway);
    }
    return { gateway, publishableKey: keys.publishableKey };
  }

  /**
   * The processor that took a payment, for its refund: Stripe's payments
   * (`pi_…`) go to the store's Stripe account, any other to the gateway of
   * a store without one (a store may connect Stripe after selling with the
   * test gateway).
   */
  async forPayment(
    storeId: number,
    testMode: boolean,
    paymentId: string,
    manager?: EntityManager,
  ): Promise<PaymentGateway> {
    if (STRIPE_PAYMENT.test(paymentId))
      return this.forStore(storeId, testMode, manager);
    return this.builtIn(testMode);
  }

  private builtIn(testMode: boolean): PaymentGateway {
    if (testMode) return this.test;
    if (!this.live) throw livePaymentsNotConfigured();
    return this.live;
  }
}
