import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/transactions';
import {
  PaymentAttempt,
  PaymentOutcome,
} from '../payment/payment-attempt.entity';
import { PaymentAttempts } from '../payment/payment-attempts';
import { stripeNotConnected } from '../payment/payment.errors';
import { StripeCheckoutIntents } from '../payment/stripe-checkout-intents';
import { withoutStripeReturnParams } from '../payment/stripe-return-url';
import { InvoiceCollection, SUBSCRIPTION_RECOVERY } from './invoice-collection';
import { SubscriptionBilling } from './subscription-billing.service';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionRepository } from './subscription.repository';
import { BillingErrors } from './billing.errors';

/** The portal's new card for a Stripe store: a SetupIntent confirmed in the browser. */
export const SUBSCRIPTION_CARD_UPDATE = 'subscription-card-update';

/** What the page's script confirms with `stripe.confirmSetup`. */
export interface CardSetup {
  intent_type: 'setup';
  client_secret: string;
  return_url: string;
}

/** Where the buyer's return leaves the card change. */
export type CardUpdateResult =
  | { status: 'succeeded' }
  | { status: 'pending' }
  | { status: 'declined'; reason: string };

const STATUSES_IN_DUNNING = new Set(['past_due', 'unpaid']);

/**
 * "Update payment method" on the portal of a store that takes cards through
 * its own Stripe account. `start` records an intent attempt (one pending per
 * subscription: a second click finds it) and, after the commit, opens a
 * SetupIntent (usage off_session) on the subscription's Stripe Customer for
 * the Payment Element. Whoever learns first that it succeeded (the signed
 * return route or `setup_intent.succeeded` through the webhook inbox, both
 * through `PaymentAttempts.settleIntent`) settles it once, under the
 * attempt's row lock: the subscription takes the real payment method (its
 * card brand and last four) and, in dunning, its open renewal invoice gets
 * a recovery charge recorded in the same transaction. After the commit,
 * only in that caller, the method becomes the Stripe Customer's default for
 * invoices and the charge is made off session (InvoiceCollection: its key
 * names the invoice and the card change, so a replay never charges twice;
 * a crash leaves it pending for the payment sweeper). A paid invoice makes
 * the subscription active with the events of any dunning recovery.
 */
@Injectable()
export class PortalCardUpdates implements OnModuleInit {
  private readonly logger = new Logger(PortalCardUpdates.name);

  constructor(
    private readonly attempts: PaymentAttempts,
    private readonly intents: StripeCheckoutIntents,
    private readonly subscriptions: SubscriptionRepository,
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly billing: SubscriptionBilling,
    private readonly collection: InvoiceCollection,
    private readonly transactions: Transactions,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    this.attempts.register(SUBSCRIPTION_CARD_UPDATE, {
      settle: (manager, attempt, outcome) =>
        this.settle(manager, attempt, outcome),
      after: (attempt, outcome) => this.after(attempt, outcome),
    });
  }

  /** The Payment Element's key and the signed setup route; null for a store without Stripe. */
  async stripeForm(
    subscriptionId: number,
  ): Promise<{ publishableKey: string; setupUrl: string } | null> {
    const s = await this.subscriptions.findById(subscriptionId);
    if (!s) return null;
    const publishableKey = await this.intents.publishableKey(
      s.storeId,
      s.testMode,
    );
    if (!publishableKey) return null;
    return {
      publishableKey,
      setupUrl: this.sign(`/portal/subscriptions/${s.id}/payment-method/setup`),
    };
  }

  /** The SetupIntent to confirm in the browser (the pending one, if a click already opened it). */
  async start(subscriptionId: number, retried = false): Promise<CardSetup> {
    const found = await this.subscriptions.findById(subscriptionId);
    if (!found) throw BillingErrors.subscriptionNotFound();
    if (found.status === 'expired') throw BillingErrors.subscriptionEnded();
    if (!(await this.intents.publishableKey(found.storeId, found.testMode)))
      throw stripeNotConnected();
    const attempt = await this.transactions.run(async (manager) => {
      const s = await this.subscriptions.lock(manager, subscriptionId);
      if (!s) throw BillingErrors.subscriptionNotFound();
      if (s.status === 'expired') throw BillingErrors.subscriptionEnded();
      const pending = await this.attempts.pendingFor(
        manager,
        [SUBSCRIPTION_CARD_UPDATE],
        s.id,
      );
      if (pending) return pending;
      const open = STATUSES_IN_DUNNING.has(s.status)
        ? await this.invoices.openRenewal(manager, s.id)
        : null;
      if (open && (await this.collection.pendingCharge(manager, open.id)))
        throw BillingErrors.invoicePaymentInProgress();
      return this.attempts.begin(manager, {
        idempotencyKey: `subscription-${s.id}-card-update-${randomUUID()}`,
        storeId: s.storeId,
        testMode: s.testMode,
        kind: 'intent',
        purpose: SUBSCRIPTION_CARD_UPDATE,
        subjectId: s.id,
        amount: 0,
        currency: s.currency,
        description: `${s.productName} (${s.variantName}): payment method`,
      });
    });
    const intent = await this.intents.open(
      attempt,
      {
        customerId: found.customerId,
        email: found.userEmail,
        name: found.userName,
      },
      true,
    );
    if (intent.status === 'succeeded' || intent.status === 'canceled') {
      // Confirmed (or dropped) before the buyer came back: settle it, start afresh.
      await this.attempts.settleIntent(
        attempt.storeId,
        attempt.testMode,
        intent.id,
      );
      if (retried) throw BillingErrors.invoicePaymentInProgress();
      return this.start(subscriptionId, true);
    }
    return {
      intent_type: 'setup',
      client_secret: intent.clientSecret,
      return_url: this.sign(
        `/portal/subscriptions/${subscriptionId}/payment-method/return?attempt=${encodeURIComponent(attempt.idempotencyKey)}`,
      ),
    };
  }

  /**
   * Where Stripe.js brings the buyer back: settles the SetupIntent (a no-op
   * when the webhook came first). Null when the link is not a signed return
   * link of this subscription.
   */
  async returned(
    subscriptionId: number,
    url: string,
  ): Promise<CardUpdateResult | null> {
    const unsigned = withoutStripeReturnParams(url);
    if (this.signedUrls.verify(unsigned) !== 'valid') return null;
    const key = new URL(unsigned, 'http://return.invalid').searchParams.get(
      'attempt',
    );
    let attempt = key ? await this.intents.intentAttemptByKey(key) : null;
    if (
      !attempt ||
      attempt.purpose !== SUBSCRIPTION_CARD_UPDATE ||
      attempt.subjectId !== subscriptionId
    )
      return null;
    if (attempt.status === 'pending' && attempt.paymentId) {
      await this.attempts.settleIntent(
        attempt.storeId,
        attempt.testMode,
        attempt.paymentId,
      );
      attempt = (await this.intents.intentAttemptByKey(key!))!;
    }
    const outcome = attempt.outcome;
    if (attempt.status === 'pending' || !outcome) return { status: 'pending' };
    if (outcome.status === 'succeeded') return { status: 'succeeded' };
    return { status: 'declined', reason: outcome.reason };
  }

  /** Runs once per attempt, inside its settling transaction. */
  private async settle(
    manager: EntityManager,
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
  ): Promise<void> {
    if (outcome.status !== 'succeeded' || !outcome.method) return;
    const method = outcome.method;
    const s = await this.subscriptions.lock(manager, attempt.subjectId);
    if (!s || s.status === 'expired') return;
    const now = attempt.updatedAt;
    s.paymentMethod = method.id;
    s.cardBrand = method.cardBrand;
    s.cardLastFour = method.cardLastFour;
    await this.billing.save(manager, s, now);
    const open = STATUSES_IN_DUNNING.has(s.status)
      ? await this.invoices.openRenewal(manager, s.id)
      : null;
    if (open && !(await this.collection.pendingCharge(manager, open.id))) {
      // The charge's settlement sends the recovery's events.
      await this.collection.begin(manager, s, open, {
        purpose: SUBSCRIPTION_RECOVERY,
        key: recoveryKey(open.id, attempt),
        paymentMethod: method.id,
        now,
      });
      return;
    }
    await this.billing.emit(manager, ['subscription_updated'], s, now);
  }

  /** After the commit, in the caller that settled it: Stripe's default, then the recovery charge. */
  private async after(
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
  ): Promise<void> {
    if (outcome.status !== 'succeeded' || !outcome.method) return;
    const s = await this.subscriptions.findById(attempt.subjectId);
    if (!s) return;
    try {
      await this.intents.makeDefault(attempt, s.customerId, outcome.method.id);
    } catch (error) {
      // Renewals charge the subscription's own method; the default is a courtesy.
      this.logger.warn(
        `Subscription ${s.id}: the new card was not made the Stripe Customer's default: ${(error as Error).message}`,
      );
    }
    const charge = await this.transactions.run(async (manager) => {
      const open = await this.invoices.openRenewal(manager, s.id);
      if (!open) return null;
      const pending = await this.collection.pendingCharge(manager, open.id);
      return pending?.idempotencyKey === recoveryKey(open.id, attempt)
        ? pending
        : null;
    });
    if (charge) await this.collection.complete(charge);
  }

  private sign(path: string): string {
    return this.signedUrls.sign(this.config.http.publicBaseUrl, path, {
      expiresAt: new Date(this.clock.now().getTime() + 24 * 3_600_000),
    });
  }
}

/** One recovery charge per invoice and card change: a replay finds the first. */
function recoveryKey(invoiceId: number, attempt: PaymentAttempt): string {
  return `subscription-invoice-${invoiceId}-card-update-${attempt.id}`;
}
