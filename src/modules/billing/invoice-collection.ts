import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import {
  invoiceNumberPlaceholder,
  InvoiceNumbers,
} from '../store/invoice-numbers';
import { Outbox } from '../webhooks/outbox';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  PaymentAttempt,
  PaymentOutcome,
} from '../payment/payment-attempt.entity';
import { PaymentMethod } from '../payment/payment-gateway';
import { PaymentAttempts } from '../payment/payment-attempts';
import { refusedOutcome } from '../payment/payment-calls';
import { nextRetryAt } from './dunning';
import {
  periodEndOf,
  SubscriptionBilling,
} from './subscription-billing.service';
import { SubscriptionInvoice } from './subscription-invoice.entity';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { SubscriptionStatus, transition } from './subscription.state';

/** The renewal sweep's charges: a renewal invoice, then its dunning retries. */
export const SUBSCRIPTION_RENEWAL = 'subscription-renewal';
/** The portal's charge of an open invoice to a card the customer just gave. */
export const SUBSCRIPTION_RECOVERY = 'subscription-recovery';
/** An `updated` invoice charged at once (`invoice_immediately`). */
export const SUBSCRIPTION_PRORATION = 'subscription-proration';

export const INVOICE_PURPOSES = [
  SUBSCRIPTION_RENEWAL,
  SUBSCRIPTION_RECOVERY,
  SUBSCRIPTION_PRORATION,
];

/** Where a refused renewal charge takes the dunning step from. */
const DUNNING_STATUSES = new Set<SubscriptionStatus>([
  'active',
  'on_trial',
  'past_due',
]);

export type InvoicePurpose =
  | typeof SUBSCRIPTION_RENEWAL
  | typeof SUBSCRIPTION_RECOVERY
  | typeof SUBSCRIPTION_PRORATION;

/**
 * Charges of subscription invoices through PaymentAttempts: `begin` records
 * the charge (pending) in the caller's transaction, the caller calls
 * `complete` once it committed, and the outcome is settled in a transaction
 * of its own, here: the invoice paid (the subscription active again, its
 * card from the method the processor charged) or, declined, the renewal's
 * dunning step (`past_due` with the next retry, or `unpaid` after the
 * last). The payment sweeper settles what a crash left pending.
 */
@Injectable()
export class InvoiceCollection implements OnModuleInit {
  private readonly logger = new Logger(InvoiceCollection.name);

  constructor(
    private readonly attempts: PaymentAttempts,
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly subscriptions: SubscriptionRepository,
    private readonly billing: SubscriptionBilling,
    private readonly numbers: InvoiceNumbers,
    private readonly outbox: Outbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    for (const purpose of INVOICE_PURPOSES) {
      this.attempts.register(purpose, {
        settle: (manager, attempt, outcome) =>
          this.settle(manager, attempt, outcome, purpose as InvoicePurpose),
      });
    }
  }

  /**
   * Records the charge of a pending invoice in the caller's transaction
   * (its subscription locked there). A zero total is paid at once and a
   * renewal without a payment method on file fails at once: both return
   * null, as there is nothing to call the processor for.
   */
  async begin(
    manager: EntityManager,
    s: Subscription,
    invoice: SubscriptionInvoice,
    charge: {
      purpose: InvoicePurpose;
      /** Unique per charge: a replay never charges twice. */
      key: string;
      paymentMethod: string | null;
      now: Date;
    },
  ): Promise<PaymentAttempt | null> {
    if (invoice.total <= 0) {
      await this.paid(manager, s, invoice, charge.purpose, null, charge.now);
      return null;
    }
    invoice.attemptCount += 1;
    // The sweep's own retry is under way; a portal charge keeps the schedule.
    if (charge.purpose !== SUBSCRIPTION_RECOVERY) invoice.nextRetryAt = null;
    invoice.updatedAt = charge.now;
    await this.invoices.save(manager, invoice);
    if (!charge.paymentMethod) {
      await this.failed(
        manager,
        s,
        invoice,
        'No payment method is on file.',
        charge.purpose,
        charge.now,
      );
      return null;
    }
    return this.attempts.begin(manager, {
      idempotencyKey: charge.key,
      storeId: invoice.storeId,
      testMode: invoice.testMode,
      kind: 'charge',
      purpose: charge.purpose,
      subjectId: invoice.id,
      amount: invoice.total,
      currency: invoice.currency,
      paymentMethod: charge.paymentMethod,
      description: `${s.productName} (${s.variantName})`,
    });
  }

  /** An invoice's charge still waiting for the processor's answer. */
  pendingCharge(
    manager: EntityManager,
    invoiceId: number,
  ): Promise<PaymentAttempt | null> {
    return this.attempts.pendingFor(manager, INVOICE_PURPOSES, invoiceId);
  }

  /**
   * Calls the processor for a committed attempt and settles it. The
   * outcome, or null when the processor could not be reached (the attempt
   * stays pending: the payment sweeper settles it).
   */
  async complete(attempt: PaymentAttempt): Promise<PaymentOutcome | null> {
    try {
      return await this.attempts.complete(attempt);
    } catch (error) {
      // Settled as failed: the processor refused the request itself.
      if (error instanceof AppError && error.status < 500)
        return refusedOutcome(error);
      this.logger.warn(
        `Invoice charge ${attempt.id} is still pending: ${(error as Error).message}`,
      );
      return null;
    }
  }

  private async settle(
    manager: EntityManager,
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
    purpose: InvoicePurpose,
  ): Promise<void> {
    // Subscription first, then invoice: the order the sweep and portal lock in.
    const subscriptionId = await this.invoices.subscriptionIdOf(
      manager,
      attempt.subjectId,
    );
    if (subscriptionId === null) return;
    const s = await this.subscriptions.lock(manager, subscriptionId);
    const invoice = await this.invoices.lock(manager, attempt.subjectId);
    if (!s || !invoice) return;
    const now = attempt.updatedAt;
    if (outcome.status === 'succeeded') {
      invoice.paymentReference = outcome.paymentId;
      await this.paid(manager, s, invoice, purpose, outcome.method, now);
      return;
    }
    const method = outcome.status === 'declined' ? outcome.method : null;
    if (method?.cardLastFour && purpose !== SUBSCRIPTION_RECOVERY) {
      this.cardOf(invoice, method);
    }
    await this.failed(manager, s, invoice, outcome.reason, purpose, now);
  }

  /**
   * The invoice is paid: a subscription in dunning is active again. An
   * immediate charge's request already sent `subscription_updated`.
   */
  private async paid(
    manager: EntityManager,
    s: Subscription,
    invoice: SubscriptionInvoice,
    purpose: InvoicePurpose,
    method: PaymentMethod | null,
    now: Date,
  ) {
    if (method) {
      s.paymentMethod = method.id;
      s.cardBrand = method.cardBrand;
      s.cardLastFour = method.cardLastFour;
      this.cardOf(invoice, method);
    }
    invoice.status = 'paid';
    // A placeholder until the number is drawn, last (see InvoiceNumbers).
    const placeholder = invoiceNumberPlaceholder();
    invoice.invoiceNumber = placeholder;
    this.outbox.watch(manager, placeholder);
    invoice.failureReason = null;
    invoice.nextRetryAt = null;
    invoice.updatedAt = now;
    await this.invoices.save(manager, invoice);
    await this.billing.emitInvoice(
      manager,
      'subscription_payment_success',
      invoice,
      s,
    );
    const recovering = s.status === 'past_due' || s.status === 'unpaid';
    if (recovering) {
      await this.billing.emitInvoice(
        manager,
        'subscription_payment_recovered',
        invoice,
        s,
      );
      transition(s, 'active');
      s.renewsAt = periodEndOf(s);
    }
    if (invoice.billingReason === 'renewal') s.failedAttempts = 0;
    await this.billing.save(manager, s, now);
    if (purpose !== SUBSCRIPTION_PRORATION || recovering) {
      await this.billing.emit(manager, ['subscription_updated'], s, now);
    }
    invoice.invoiceNumber = await this.numbers.assign(
      manager,
      'subscription_invoices',
      invoice,
      now,
      { placeholder, events: this.outbox.carrying(manager, placeholder) },
    );
  }

  /**
   * A refused charge. A renewal's (the sweep's) takes the dunning step; a
   * refused immediate charge voids its invoice and moves the amount to the
   * next renewal; a card the customer typed on the portal changes nothing
   * but the invoice's record of attempts.
   */
  private async failed(
    manager: EntityManager,
    s: Subscription,
    invoice: SubscriptionInvoice,
    reason: string,
    purpose: InvoicePurpose,
    now: Date,
  ) {
    invoice.failureReason = reason;
    invoice.updatedAt = now;
    if (purpose === SUBSCRIPTION_RECOVERY) {
      await this.invoices.save(manager, invoice);
      return;
    }
    if (purpose === SUBSCRIPTION_PRORATION) {
      invoice.status = 'void';
      await this.invoices.save(manager, invoice);
      s.pendingProration += invoice.subtotal;
    } else {
      s.failedAttempts += 1;
      this.dunningStep(s, invoice, now);
      await this.invoices.save(manager, invoice);
    }
    await this.billing.emitInvoice(
      manager,
      'subscription_payment_failed',
      invoice,
      s,
    );
    await this.billing.save(manager, s, now);
    await this.billing.emit(manager, ['subscription_updated'], s, now);
  }

  /**
   * After the renewal's `failedAttempts`-th failed charge: `past_due` until
   * the next retry of DUNNING_SCHEDULE (`renews_at` is the retry, as in the
   * reference), or `unpaid` when none is left. A subscription that was
   * cancelled or paused meanwhile keeps its status.
   */
  private dunningStep(
    s: Subscription,
    invoice: SubscriptionInvoice,
    now: Date,
  ) {
    if (!DUNNING_STATUSES.has(s.status)) return;
    const next = nextRetryAt(
      invoice.periodStart,
      s.failedAttempts,
      this.config.billing.dunningScheduleMs,
    );
    transition(s, 'past_due');
    if (next) {
      s.renewsAt = next;
      invoice.nextRetryAt = next;
      return;
    }
    transition(s, 'unpaid');
    s.renewsAt = periodEndOf(s);
    invoice.nextRetryAt = null;
    this.logger.log(
      `Subscription ${s.id} is unpaid after ${s.failedAttempts} failed charges (${now.toISOString()})`,
    );
  }

  private cardOf(invoice: SubscriptionInvoice, method: PaymentMethod) {
    invoice.cardBrand = method.cardBrand;
    invoice.cardLastFour = method.cardLastFour;
  }
}
