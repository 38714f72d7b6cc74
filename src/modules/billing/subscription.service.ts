import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { BillingCaller, isPortalCaller } from './billing-caller';
import { planChangeAmounts } from './plan-change';
import { forSeconds, prorate, secondsBetween } from '../../common/money';
import { Transactions } from '../../database/transactions';
import { isUsageBased } from '../catalog/price-rules';
import { WebhookEventName } from '../webhooks/webhook-events';
import { nextAnchorDate, periodEnd } from './billing-period';
import { SubscriptionView } from './billing-views';
import { SubscriptionUpdateAttributes } from './billing.dto';
import { planName } from './invoice-lines';
import { prorationMode } from './proration';
import { PaymentAttempt } from '../payment/payment-attempt.entity';
import { InvoiceCollection } from './invoice-collection';
import { ProrationCharges, ProrationFlags } from './proration-charges';
import { RenewalService } from './renewal.service';
import { SubscriptionBilling } from './subscription-billing.service';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import {
  assertOpen,
  cancelNow,
  resume,
  setPause,
  setTrialEnd,
} from './subscription-status-changes';
import { BillingErrors } from './billing.errors';

/** A PATCH's proration flags, and the charges it makes once committed. */
interface ChangeFlags extends ProrationFlags {
  charges: PaymentAttempt[];
}

/** Subscriptions: reads, PATCH (plan, pause, cancel, trial, anchor) and DELETE. */
@Injectable()
export class SubscriptionService {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly billing: SubscriptionBilling,
    private readonly renewals: RenewalService,
    private readonly prorations: ProrationCharges,
    private readonly collection: InvoiceCollection,
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
   * PATCH. Every change of one request happens in one transaction; what it
   * charges at once (an immediate proration, a trial ended by
   * `billing_anchor`) is charged after that commits, and the record is
   * answered as the charge left it (see InvoiceCollection).
   */
  async update(
    caller: BillingCaller,
    id: number,
    input: SubscriptionUpdateAttributes,
  ): Promise<SubscriptionView> {
    const charges: PaymentAttempt[] = [];
    const view = await this.transactions.run(async (manager) => {
      charges.length = 0;
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
      const changed: string[] = [];
      const endsAtBefore = s.endsAt?.getTime() ?? null;
      const flags: ChangeFlags = {
        invoiceImmediately: input.invoice_immediately,
        disableProrations: input.disable_prorations,
        charges,
      };
      if (input.cancelled === false && s.status === 'cancelled') {
        resume(s, now);
        events.add('subscription_resumed');
      }
      if (input.variant_id !== undefined && input.variant_id !== s.variantId) {
        await this.changePlan(manager, s, input.variant_id, flags, now, portal);
        events.add('subscription_updated');
        changed.push('variant_id');
      }
      if (input.trial_ends_at !== undefined) {
        setTrialEnd(s, input.trial_ends_at, now);
        events.add('subscription_updated');
      }
      if (input.billing_anchor !== undefined) {
        await this.moveAnchor(manager, s, input.billing_anchor, flags, now);
        events.add('subscription_updated');
      }
      if (input.pause !== undefined) {
        const event = setPause(s, input.pause, now);
        if (event) events.add(event);
      }
      if (input.cancelled === true && s.status !== 'cancelled') {
        cancelNow(s, now);
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
          { changed },
        );
      }
      const [view] = await this.billing.views(manager, [s], now);
      return view;
    });
    if (charges.length === 0) return view;
    for (const charge of charges) await this.collection.complete(charge);
    return (await this.reread(caller, id)) ?? view;
  }

  /** The record after its charges, as the caller may see it. */
  private async reread(caller: BillingCaller, id: number) {
    if (!isPortalCaller(caller)) return this.findOne(caller, id);
    const s = await this.subscriptions.findById(id);
    if (!s) return null;
    const [view] = await this.billing.views(null, [s], this.clock.now());
    return view;
  }

  private async changePlan(
    manager: EntityManager,
    s: Subscription,
    variantId: number,
    flags: ChangeFlags,
    now: Date,
    portal: boolean,
  ) {
    assertOpen(s, 'variant_id');
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
    // A custom price was the old plan's; the new plan costs its own price.
    item.customUnitPrice = null;
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
    flags: ChangeFlags,
    now: Date,
  ) {
    assertOpen(s, 'billing_anchor');
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
        const charge = await this.renewals.renew(manager, s, now);
        if (charge) flags.charges.push(charge);
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
    flags: ChangeFlags,
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
    await this.prorate(
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
    flags: ChangeFlags,
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
    await this.prorate(manager, s, net, flags, now, description);
  }

  private async prorate(
    manager: EntityManager,
    s: Subscription,
    net: number,
    flags: ChangeFlags,
    now: Date,
    description: string,
  ) {
    const charge = await this.prorations.settle(
      manager,
      s,
      net,
      flags,
      now,
      description,
    );
    if (charge) flags.charges.push(charge);
  }
}
