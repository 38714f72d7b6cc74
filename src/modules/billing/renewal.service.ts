import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/transactions';
import { PaymentAttempt } from '../payment/payment-attempt.entity';
import {
  periodEndOf,
  renewalDiscount,
  SubscriptionBilling,
} from './subscription-billing.service';
import { linesTotal, withCarriedProration } from './invoice-lines';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { transition } from './subscription.state';
import { nextRetryAt, renewalChargeKey } from './dunning';
import { InvoiceCollection, SUBSCRIPTION_RENEWAL } from './invoice-collection';
import {
  RenewalQuotes,
  RenewalTax,
  RenewalTaxQuoteNeeded,
} from './renewal-tax';

export interface SweepResult {
  /** Steps taken: renewals, retries, unpauses, skipped paused periods, expiries. */
  steps: number;
}

/**
 * The renewal engine. A sweep takes due subscriptions one at a time, each in
 * its own transaction under FOR UPDATE SKIP LOCKED, so sweeps running at once
 * (several workers, or the scheduler and the CLI) never handle the same
 * subscription twice; each step moves `next_action_at` past what it did, and
 * a renewal invoice is unique per (subscription, period start).
 */
@Injectable()
export class RenewalService {
  private readonly logger = new Logger(RenewalService.name);

  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly billing: SubscriptionBilling,
    private readonly collection: InvoiceCollection,
    private readonly transactions: Transactions,
    private readonly renewalTax: RenewalTax,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Everything due at `asOf`, including periods missed while no sweep ran.
   * A step that charges commits the charge as a pending payment attempt;
   * the processor is called after that commit and the outcome settled in a
   * transaction of its own (InvoiceCollection). A Stripe Tax store's
   * renewal first rolls back for a calculation, made between transactions.
   */
  async sweep(asOf: Date): Promise<SweepResult> {
    const stuck: number[] = [];
    const quotes: RenewalQuotes = new Map();
    let steps = 0;
    for (;;) {
      let taken: { id: number; charge: PaymentAttempt | null } | null;
      try {
        taken = await this.transactions.run(async (manager) => {
          const s = await this.subscriptions.lockNextDue(manager, asOf, stuck);
          if (!s) return null;
          const before = s.nextActionAt?.getTime() ?? null;
          const charge = await this.step(manager, s, asOf, quotes);
          // A step that leaves the subscription due at the same instant would loop.
          if (
            s.nextActionAt &&
            s.nextActionAt <= asOf &&
            s.nextActionAt.getTime() === before
          ) {
            stuck.push(s.id);
          }
          return { id: s.id, charge };
        });
      } catch (error) {
        if (error instanceof RenewalTaxQuoteNeeded) {
          await this.quote(error, quotes, stuck);
          continue;
        }
        this.logger.error({ err: error }, 'Renewal step failed');
        throw error;
      }
      if (taken === null) return { steps };
      if (taken.charge) await this.collection.complete(taken.charge);
      steps++;
    }
  }

  /**
   * Stripe Tax's calculation for a renewal, outside any transaction. As a
   * checkout does when Stripe Tax fails (503, nothing written, never a
   * guessed tax), the renewal is not invoiced nor charged: the
   * subscription stays due, is skipped for the rest of this sweep and is
   * tried again by the next one. A second stale calculation in one sweep
   * (the amount keeps changing) is skipped the same way.
   */
  private async quote(
    needed: RenewalTaxQuoteNeeded,
    quotes: RenewalQuotes,
    stuck: number[],
  ): Promise<void> {
    const id = needed.subscriptionId;
    if (quotes.has(id)) {
      stuck.push(id);
      return;
    }
    try {
      quotes.set(id, await this.renewalTax.quote(needed.request));
    } catch (error) {
      // Stripe Tax's answers are AppErrors (503, 422); anything else is a bug.
      if (!(error instanceof AppError)) throw error;
      this.logger.warn(
        `Renewal of subscription ${id} waits for Stripe Tax: ${error.codes.join(', ')}: ${error.message}`,
      );
      stuck.push(id);
    }
  }

  /** One due action of a locked subscription; a charge to make once it commits. */
  async step(
    manager: EntityManager,
    s: Subscription,
    asOf: Date,
    quotes?: RenewalQuotes,
  ): Promise<PaymentAttempt | null> {
    switch (s.status) {
      case 'cancelled':
        if (s.endsAt && s.endsAt <= asOf) await this.expire(manager, s, asOf);
        return null;
      case 'paused':
        if (
          s.pauseResumesAt &&
          s.pauseResumesAt <= asOf &&
          s.pauseResumesAt <= s.renewsAt
        ) {
          transition(
            s,
            s.trialEndsAt && s.trialEndsAt > asOf ? 'on_trial' : 'active',
          );
          s.pauseMode = null;
          s.pauseResumesAt = null;
          await this.billing.save(manager, s, asOf);
          await this.billing.emit(
            manager,
            ['subscription_updated', 'subscription_unpaused'],
            s,
            asOf,
          );
        } else if (s.renewsAt <= asOf) {
          // A paused period is not charged: it passes without an invoice.
          s.currentPeriodStart = s.renewsAt;
          s.renewsAt = periodEndOf(s);
          await this.billing.save(manager, s, asOf);
        }
        return null;
      case 'on_trial':
      case 'active':
        return s.renewsAt <= asOf ? this.renew(manager, s, asOf, quotes) : null;
      case 'past_due':
        return s.renewsAt <= asOf ? this.retry(manager, s, asOf) : null;
      case 'unpaid':
      case 'expired':
        return null;
    }
  }

  /**
   * Invoices the period starting at `renews_at`: quantity items in advance,
   * metered items for the period that ended (not for a trial), plus pending
   * prorations; a credit larger than the invoice carries over. The charge
   * is returned, to make once this transaction commits; its outcome moves
   * the subscription (paid: active; refused: past_due, see dunning.ts).
   * With `quotes` (the sweep), a Stripe Tax store's invoice is priced by its
   * own calculation (RenewalTax); without (a trial ended through the API),
   * by the subscription's terms.
   */
  async renew(
    manager: EntityManager,
    s: Subscription,
    now: Date,
    quotes?: RenewalQuotes,
  ): Promise<PaymentAttempt | null> {
    const start = s.renewsAt;
    const wasTrial = s.status === 'on_trial';
    const existing = await this.invoices.renewalFor(manager, s.id, start);
    if (existing) {
      throw new Error(
        `Subscription ${s.id} already has a renewal invoice for ${start.toISOString()}`,
      );
    }
    const items = await this.subscriptions.itemsOf(manager, s.id);
    const charges = await this.billing.renewalCharges(
      manager,
      s,
      items,
      !wasTrial,
    );
    const lines = withCarriedProration(charges, s.pendingProration);
    s.pendingProration = Math.min(0, linesTotal(charges) + s.pendingProration);
    s.currentPeriodStart = start;
    s.renewsAt = periodEndOf(s, start);
    if (wasTrial) s.trialEndsAt = null;
    const subtotal = linesTotal(lines);
    const discountTotal = renewalDiscount(s, subtotal, start);
    const tax = quotes
      ? await this.renewalTax.terms(
          manager,
          s,
          subtotal - Math.min(discountTotal, subtotal),
          quotes,
        )
      : null;
    const invoice = await this.billing.createInvoice(manager, s, {
      reason: 'renewal',
      lines,
      discountTotal,
      periodStart: start,
      periodEnd: s.renewsAt,
      now,
      tax,
    });
    transition(s, 'active');
    s.failedAttempts = 0;
    const charge = await this.collection.begin(manager, s, invoice, {
      purpose: SUBSCRIPTION_RENEWAL,
      key: renewalChargeKey(s.id, start, 0),
      paymentMethod: s.paymentMethod,
      now,
    });
    // Settled at once (nothing to charge, no method): saved with its events.
    if (charge) await this.billing.save(manager, s, now);
    return charge;
  }

  /**
   * Charges the open renewal invoice again (dunning). `renews_at` moves to
   * the retry after this one (or the period's end) before the charge, so no
   * other sweep takes the subscription meanwhile; the outcome settles it.
   * While an earlier charge of the invoice is still in flight, nothing is
   * charged.
   */
  async retry(
    manager: EntityManager,
    s: Subscription,
    now: Date,
  ): Promise<PaymentAttempt | null> {
    const invoice = await this.invoices.openRenewal(manager, s.id);
    if (!invoice) {
      transition(s, 'active');
      s.failedAttempts = 0;
      s.renewsAt = periodEndOf(s);
      await this.billing.save(manager, s, now);
      await this.billing.emit(manager, ['subscription_updated'], s, now);
      return null;
    }
    if (await this.collection.pendingCharge(manager, invoice.id)) return null;
    const retry = s.failedAttempts;
    s.renewsAt =
      nextRetryAt(
        invoice.periodStart,
        retry + 1,
        this.config.billing.dunningScheduleMs,
      ) ?? periodEndOf(s);
    const charge = await this.collection.begin(manager, s, invoice, {
      purpose: SUBSCRIPTION_RENEWAL,
      key: renewalChargeKey(s.id, invoice.periodStart, retry),
      paymentMethod: s.paymentMethod,
      now,
    });
    if (charge) await this.billing.save(manager, s, now);
    return charge;
  }

  private async expire(manager: EntityManager, s: Subscription, now: Date) {
    transition(s, 'expired');
    const open = await this.invoices.openRenewal(manager, s.id);
    if (open) {
      open.status = 'void';
      open.updatedAt = now;
      await this.invoices.save(manager, open);
    }
    await this.billing.save(manager, s, now);
    await this.billing.emit(
      manager,
      ['subscription_updated', 'subscription_expired'],
      s,
      now,
    );
  }
}
