import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { BillingCaller, isPortalCaller } from './billing-caller';
import { planChangeAmounts } from './plan-change';
import { forSeconds, prorate, secondsBetween } from '../../common/money';
import { parseTimestamp } from '../../common/timestamps';
import { Transactions } from '../../database/transactions';
import { isUsageBased } from '../catalog/price-rules';
import { WebhookEventName } from '../webhooks/webhook-events';
import { nextAnchorDate, periodEnd } from './billing-period';
import { SubscriptionView } from './billing-views';
import { SubscriptionUpdateAttributes } from './billing.dto';
import { planName } from './invoice-lines';
import { prorationMode } from './proration';
import { RenewalService } from './renewal.service';
import {
  periodEndOf,
  SubscriptionBilling,
} from './subscription-billing.service';
import { PauseMode, Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { transition } from './subscription.state';
import { BillingErrors } from './billing.errors';

/** The Go client sends a zero time for "no resume date". */
const ZERO_TIME = /^0001-01-01T00:00:00/;

/** Subscriptions: reads, PATCH (plan, pause, cancel, trial, anchor) and DELETE. */
@Injectable()
export class SubscriptionService {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly billing: SubscriptionBilling,
    private readonly renewals: RenewalService,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  async findOne(principal: Principal, id: number) {
    const [view] = await this.findMany(principal, [id]);
    return view ?? null;
  }

  async findMany(principal: Principal, ids: number[]) {
    return this.billing.views(
      null,
      await this.subscriptions.findVisible(principal, ids),
      this.clock.now(),
    );
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<SubscriptionView>> {
    const page = await this.subscriptions.findPage(principal, query);
    return {
      records: await this.billing.views(null, page.records, this.clock.now()),
      total: page.total,
    };
  }

  async findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ) {
    return this.billing.views(
      null,
      await this.subscriptions.findByFilter(principal, filter, values),
      this.clock.now(),
    );
  }

  /** DELETE: cancels at the end of the paid period (200 with the record). */
  cancel(principal: Principal, id: number): Promise<SubscriptionView> {
    return this.update(principal, id, { cancelled: true });
  }

  /**
   * PATCH. Every change of one request happens in one transaction; a
   * declined immediate charge rolls the whole request back (422).
   */
  update(
    caller: BillingCaller,
    id: number,
    input: SubscriptionUpdateAttributes,
  ): Promise<SubscriptionView> {
    return this.transactions.run(async (manager) => {
      const now = this.clock.now();
      const portal = isPortalCaller(caller);
      const s = portal
        ? await this.subscriptions.lock(manager, id)
        : await this.subscriptions.lockVisible(manager, caller, id);
      if (!s) throw AppError.notFound();
      if (s.status === 'expired') {
        throw BillingErrors.subscriptionExpired();
      }
      const events = new Set<WebhookEventName>();
      const endsAtBefore = s.endsAt?.getTime() ?? null;
      const flags = {
        invoiceImmediately: input.invoice_immediately,
        disableProrations: input.disable_prorations,
      };
      if (input.cancelled === false && s.status === 'cancelled') {
        this.resume(s, now);
        events.add('subscription_resumed');
      }
      if (input.variant_id !== undefined && input.variant_id !== s.variantId) {
        await this.changePlan(manager, s, input.variant_id, flags, now, portal);
        events.add('subscription_updated');
      }
      if (input.trial_ends_at !== undefined) {
        this.setTrialEnd(s, input.trial_ends_at, now);
        events.add('subscription_updated');
      }
      if (input.billing_anchor !== undefined) {
        await this.moveAnchor(manager, s, input.billing_anchor, flags, now);
        events.add('subscription_updated');
      }
      if (input.pause !== undefined) {
        const event = this.setPause(s, input.pause, now);
        if (event) events.add(event);
      }
      if (input.cancelled === true && s.status !== 'cancelled') {
        this.cancelNow(s, now);
        events.add('subscription_cancelled');
      }
      if (events.size > 0) {
        await this.billing.save(manager, s, now);
        if ((s.endsAt?.getTime() ?? null) !== endsAtBefore) {
          await this.billing.endChanged(manager, s);
        }
        // subscription_updated is the catch-all sent with every change.
        await this.billing.emit(
          manager,
          [
            'subscription_updated',
            ...[...events].filter((e) => e !== 'subscription_updated'),
          ],
          s,
          now,
        );
      }
      const [view] = await this.billing.views(manager, [s], now);
      return view;
    });
  }

  private cancelNow(s: Subscription, now: Date) {
    // The paid period (or the trial) runs out; an unpaid period ends now.
    const endsAt =
      s.status === 'on_trial' && s.trialEndsAt
        ? s.trialEndsAt
        : s.status === 'past_due' || s.status === 'unpaid'
          ? now
          : s.renewsAt;
    transition(s, 'cancelled');
    s.endsAt = endsAt;
    s.cancelled = true;
    s.pauseMode = null;
    s.pauseResumesAt = null;
  }

  private resume(s: Subscription, now: Date) {
    if (s.endsAt && s.endsAt <= now) {
      throw BillingErrors.alreadyEnded();
    }
    const next =
      s.trialEndsAt && s.trialEndsAt > now
        ? 'on_trial'
        : s.failedAttempts > 0
          ? 'past_due'
          : 'active';
    transition(s, next);
    s.cancelled = false;
    s.endsAt = null;
  }

  private assertOpen(s: Subscription, attribute: string) {
    if (s.status === 'cancelled') {
      throw BillingErrors.cancelledFirstResume(attribute);
    }
  }

  private setPause(
    s: Subscription,
    raw: Record<string, unknown> | null,
    now: Date,
  ): WebhookEventName | null {
    if (raw === null) {
      if (s.status !== 'paused') return null;
      s.pauseMode = null;
      s.pauseResumesAt = null;
      const next = s.trialEndsAt && s.trialEndsAt > now ? 'on_trial' : 'active';
      transition(s, next);
      if (s.renewsAt <= now) s.renewsAt = periodEndOf(s);
      return 'subscription_unpaused';
    }
    this.assertOpen(s, 'pause');
    const unknown = Object.keys(raw).filter(
      (k) => k !== 'mode' && k !== 'resumes_at',
    );
    if (unknown.length > 0) {
      throw BillingErrors.invalidPause(`Unknown pause field "${unknown[0]}".`);
    }
    if (raw.mode !== 'void' && raw.mode !== 'free') {
      throw BillingErrors.invalidPause('pause.mode must be void or free.');
    }
    let resumesAt: Date | null = null;
    if (
      raw.resumes_at !== undefined &&
      raw.resumes_at !== null &&
      !(typeof raw.resumes_at === 'string' && ZERO_TIME.test(raw.resumes_at))
    ) {
      resumesAt = parseTimestamp(raw.resumes_at);
      if (!resumesAt || resumesAt <= now) {
        throw BillingErrors.invalidPause(
          'pause.resumes_at must be a future ISO 8601 date-time, or null.',
        );
      }
    }
    if (s.status === 'unpaid' || s.status === 'past_due') {
      throw BillingErrors.unpaidCannotPause();
    }
    const wasPaused = s.status === 'paused';
    transition(s, 'paused');
    s.pauseMode = raw.mode as PauseMode;
    s.pauseResumesAt = resumesAt;
    return wasPaused ? 'subscription_updated' : 'subscription_paused';
  }

  private setTrialEnd(s: Subscription, raw: unknown, now: Date) {
    this.assertOpen(s, 'trial_ends_at');
    const trialEndsAt = parseTimestamp(raw);
    if (!trialEndsAt || trialEndsAt <= now) {
      throw BillingErrors.invalidTrialEnd();
    }
    // A pause ends by unpausing (which may land on a trial), not by a new trial.
    if (s.status === 'paused') throw BillingErrors.trialNotAllowed(s.status);
    // Billing stops until the trial ends; the period in progress stays paid.
    transition(s, 'on_trial', 'trial_ends_at');
    s.trialEndsAt = trialEndsAt;
    s.renewsAt = trialEndsAt;
  }

  private async changePlan(
    manager: EntityManager,
    s: Subscription,
    variantId: number,
    flags: { invoiceImmediately?: boolean; disableProrations?: boolean },
    now: Date,
    portal: boolean,
  ) {
    this.assertOpen(s, 'variant_id');
    const target = await this.subscriptions.variantInStore(
      manager,
      s.storeId,
      s.testMode,
      variantId,
    );
    if (!target) {
      throw portal
        ? BillingErrors.planNotOffered()
        : BillingErrors.variantNotFound();
    }
    const { variant, product, price } = target;
    // The portal offers only the product's published plans.
    if (
      portal &&
      (variant.productId !== s.productId || variant.status !== 'published')
    ) {
      throw BillingErrors.planNotOffered();
    }
    if (
      !price ||
      price.category !== 'subscription' ||
      !price.renewalIntervalUnit ||
      !price.renewalIntervalQuantity
    ) {
      throw BillingErrors.variantWithoutSubscriptionPrice();
    }
    const items = await this.subscriptions.itemsOf(manager, s.id);
    const item = items[0];
    if (item.isUsageBased !== isUsageBased(price)) {
      throw BillingErrors.billingModelSwitch();
    }
    const oldPrice = await this.subscriptions.price(manager, item.priceId);
    const { oldAmount, newAmount } = planChangeAmounts(
      s,
      item,
      oldPrice,
      price,
    );
    item.priceId = price.id;
    item.updatedAt = now;
    await this.subscriptions.saveItem(manager, item);
    s.variantId = variant.id;
    s.productId = product.id;
    s.variantName = variant.name;
    s.productName = product.name;
    s.intervalUnit = price.renewalIntervalUnit;
    s.intervalQuantity = price.renewalIntervalQuantity;
    await this.applyProration(
      manager,
      s,
      oldAmount,
      newAmount,
      flags,
      now,
      `Plan change to ${planName(product.name, variant.name)}, prorated`,
    );
  }

  private async moveAnchor(
    manager: EntityManager,
    s: Subscription,
    anchor: number | null,
    flags: { invoiceImmediately?: boolean; disableProrations?: boolean },
    now: Date,
  ) {
    this.assertOpen(s, 'billing_anchor');
    if (
      s.status === 'paused' ||
      s.status === 'past_due' ||
      s.status === 'unpaid'
    ) {
      throw BillingErrors.anchorFixed(s.status);
    }
    const monthly = s.intervalUnit === 'month' || s.intervalUnit === 'year';
    if (!anchor) {
      s.billingAnchor = now.getUTCDate();
      if (s.status === 'on_trial') {
        // Ending the trial starts the first paid period now.
        s.trialEndsAt = null;
        s.renewsAt = now;
        await this.renewals.renew(manager, s, now, { declineThrows: true });
        return;
      }
      const newEnd = periodEnd(
        now,
        { unit: s.intervalUnit, quantity: s.intervalQuantity },
        s.billingAnchor,
      );
      await this.stretchPeriod(manager, s, newEnd, flags, now);
      return;
    }
    if (!monthly) {
      throw BillingErrors.anchorNotMonthly();
    }
    s.billingAnchor = anchor;
    if (s.status === 'on_trial') return;
    await this.stretchPeriod(
      manager,
      s,
      nextAnchorDate(now, anchor),
      flags,
      now,
    );
  }

  /** Moves the current period's end; the longer or shorter period is prorated. */
  private async stretchPeriod(
    manager: EntityManager,
    s: Subscription,
    newEnd: Date,
    flags: { invoiceImmediately?: boolean; disableProrations?: boolean },
    now: Date,
  ) {
    if (newEnd.getTime() === s.renewsAt.getTime()) return;
    const items = await this.subscriptions.itemsOf(manager, s.id);
    const amount = await this.billing.advanceAmount(manager, items);
    // The added (or, negative, removed) seconds at the period's own rate.
    const net = forSeconds(
      amount,
      secondsBetween(s.renewsAt, newEnd),
      secondsBetween(s.currentPeriodStart, s.renewsAt),
    );
    s.renewsAt = newEnd;
    await this.billing.settleProration(
      manager,
      s,
      net,
      flags,
      now,
      `${planName(s.productName, s.variantName)}: billing date change, prorated`,
    );
  }

  private async applyProration(
    manager: EntityManager,
    s: Subscription,
    oldAmount: number,
    newAmount: number,
    flags: { invoiceImmediately?: boolean; disableProrations?: boolean },
    now: Date,
    description: string,
  ) {
    // Only a running paid period has anything to prorate.
    if (s.status !== 'active' || prorationMode(flags) === 'none') return;
    const { net } = prorate({
      periodStart: s.currentPeriodStart,
      periodEnd: s.renewsAt,
      now,
      oldAmount,
      newAmount,
    });
    await this.billing.settleProration(
      manager,
      s,
      net,
      flags,
      now,
      description,
    );
  }
}
