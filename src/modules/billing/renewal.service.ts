import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Transactions } from '../../database/transactions';
import { WebhookEventName } from '../webhooks/webhook-events';
import {
  periodEndOf,
  renewalDiscount,
  SubscriptionBilling,
} from './subscription-billing.service';
import { linesTotal, withCarriedProration } from './invoice-lines';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { RETRY_DELAYS_DAYS, transition } from './subscription.state';
import { BillingErrors } from './billing.errors';

const DAY_MS = 86_400_000;

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
    private readonly transactions: Transactions,
  ) {}

  /** Everything due at `asOf`, including periods missed while no sweep ran. */
  async sweep(asOf: Date): Promise<SweepResult> {
    const stuck: number[] = [];
    let steps = 0;
    for (;;) {
      let id: number | null;
      try {
        id = await this.transactions.run(async (manager) => {
          const s = await this.subscriptions.lockNextDue(manager, asOf, stuck);
          if (!s) return null;
          const before = s.nextActionAt?.getTime() ?? null;
          await this.step(manager, s, asOf);
          // A step that leaves the subscription due at the same instant would loop.
          if (
            s.nextActionAt &&
            s.nextActionAt <= asOf &&
            s.nextActionAt.getTime() === before
          ) {
            stuck.push(s.id);
          }
          return s.id;
        });
      } catch (error) {
        this.logger.error({ err: error }, 'Renewal step failed');
        throw error;
      }
      if (id === null) return { steps };
      steps++;
    }
  }

  /** One due action of a locked subscription. */
  async step(manager: EntityManager, s: Subscription, asOf: Date) {
    switch (s.status) {
      case 'cancelled':
        if (s.endsAt && s.endsAt <= asOf) await this.expire(manager, s, asOf);
        return;
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
        return;
      case 'on_trial':
      case 'active':
        if (s.renewsAt <= asOf) await this.renew(manager, s, asOf);
        return;
      case 'past_due':
        if (s.renewsAt <= asOf) await this.retry(manager, s, asOf);
        return;
      case 'unpaid':
      case 'expired':
        return;
    }
  }

  /**
   * Invoices the period starting at `renews_at`: quantity items in advance,
   * metered items for the period that ended (not for a trial), plus pending
   * prorations; a credit larger than the invoice carries over.
   */
  async renew(
    manager: EntityManager,
    s: Subscription,
    now: Date,
    options: { declineThrows?: boolean } = {},
  ): Promise<void> {
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
    const invoice = await this.billing.createInvoice(manager, s, {
      reason: 'renewal',
      lines,
      discountTotal: renewalDiscount(s, subtotal, start),
      periodStart: start,
      periodEnd: s.renewsAt,
      now,
    });
    const events: WebhookEventName[] = ['subscription_updated'];
    if (await this.billing.collect(manager, s, invoice, now)) {
      transition(s, 'active');
      s.failedAttempts = 0;
    } else {
      if (options.declineThrows) {
        throw BillingErrors.paymentDeclined(invoice.failureReason);
      }
      transition(s, 'past_due');
      s.failedAttempts = 1;
      // For past_due, renews_at is the next retry (reference section 4).
      s.renewsAt = new Date(start.getTime() + RETRY_DELAYS_DAYS[0] * DAY_MS);
    }
    await this.billing.save(manager, s, now);
    await this.billing.emit(manager, events, s, now);
  }

  /** Retries the open renewal invoice: recovered, next retry, or `unpaid`. */
  async retry(manager: EntityManager, s: Subscription, now: Date) {
    const invoice = await this.invoices.openRenewal(manager, s.id);
    const paid =
      !invoice ||
      (await this.billing.collect(manager, s, invoice, now, {
        recovering: true,
        attempt: s.failedAttempts,
      }));
    if (paid) {
      transition(s, 'active');
      s.failedAttempts = 0;
      s.renewsAt = periodEndOf(s);
    } else {
      s.failedAttempts += 1;
      if (s.failedAttempts > RETRY_DELAYS_DAYS.length) {
        transition(s, 'unpaid');
        s.renewsAt = periodEndOf(s);
      } else {
        s.renewsAt = new Date(
          s.renewsAt.getTime() +
            RETRY_DELAYS_DAYS[s.failedAttempts - 1] * DAY_MS,
        );
      }
    }
    await this.billing.save(manager, s, now);
    await this.billing.emit(manager, ['subscription_updated'], s, now);
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
