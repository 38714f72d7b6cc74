import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { formatMoney, prorate } from '../../common/money';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { isUsageBased } from '../catalog/price-rules';
import { Price } from '../catalog/price.entity';
import {
  perInterval,
  subscriptionTerms,
  unitPriceText,
} from '../catalog/subscription-terms';
import { PORTAL_LINK_LIFETIME_MS } from '../customer/customer.service';
import { PORTAL_CALLER } from './billing-caller';
import { SubscriptionView } from './billing-views';
import { planChangeAmounts } from './plan-change';
import { amountFor } from './pricing';
import { itemTerms, SubscriptionBilling } from './subscription-billing.service';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionItemService } from './subscription-item.service';
import { SubscriptionRepository } from './subscription.repository';
import { SubscriptionService } from './subscription.service';
import { Subscription } from './subscription.entity';
import { SubscriptionItem } from './subscription-item.entity';
import { BillingErrors } from './billing.errors';

/**
 * A subscription's auto-renewal terms while it renews (a trial in progress,
 * then the plan's amount for the quantity from the next charge); null once
 * cancelled or ended.
 */
export function renewalTerms(
  s: Subscription,
  item: SubscriptionItem | null,
  price: Price | null,
): string | null {
  if (s.status === 'cancelled' || s.status === 'expired' || !item || !price)
    return null;
  const onTrial = s.status === 'on_trial' && s.trialEndsAt !== null;
  return subscriptionTerms({
    price,
    amount: amountFor(itemTerms(price, item), item.quantity),
    currency: s.currency,
    firstChargeAt: onTrial ? s.trialEndsAt! : s.renewsAt,
    trial: onTrial,
  });
}

/** The signed form targets of a subscription's portal page. */
export interface PortalActions {
  cancel: string;
  resume: string;
  planPreview: string;
  plan: string;
  quantity: string;
}

export interface PortalPlan {
  variantId: number;
  name: string;
  /** "$12.00 per month", or a metered plan's unit price. */
  price: string;
  current: boolean;
}

export interface PortalInvoice {
  date: Date;
  reason: string;
  total: string;
  status: string;
  url: string | null;
}

/** What the subscription's portal page shows. */
export interface SubscriptionPortalModel {
  subscription: SubscriptionView;
  storeName: string;
  /** When the page was built (the app's clock). */
  now: Date;
  /** Auto-renewal terms while it renews; null once cancelled or ended. */
  terms: string | null;
  plans: PortalPlan[];
  /** The quantity form (quantity-priced plans only). */
  quantity: { value: number; min: number; max: number } | null;
  invoices: PortalInvoice[];
  actions: PortalActions;
}

/** A plan change priced before the subscriber confirms it. */
export interface PlanQuote {
  variantId: number;
  planName: string;
  price: string;
  /** What the change adds to (positive) or takes off (negative) the next renewal. */
  net: number;
  netFormatted: string;
}

/**
 * The subscriber's self-service through the signed portal link: every
 * change goes through the API's own services (SubscriptionService.update,
 * SubscriptionItemService.updateQuantity) as the portal caller, so the same
 * state table, events and webhooks apply, with the portal's limits.
 */
@Injectable()
export class SubscriptionSelfService {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly billing: SubscriptionBilling,
    private readonly api: SubscriptionService,
    private readonly items: SubscriptionItemService,
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  cancel(id: number) {
    return this.api.update(PORTAL_CALLER, id, { cancelled: true });
  }

  resume(id: number) {
    return this.api.update(PORTAL_CALLER, id, { cancelled: false });
  }

  changePlan(id: number, variantId: number) {
    return this.api.update(PORTAL_CALLER, id, { variant_id: variantId });
  }

  async changeQuantity(id: number, quantity: number) {
    const [item] = (await this.subscriptions.firstItems(null, [id])).values();
    if (!item) throw BillingErrors.subscriptionNotFound();
    await this.items.updateQuantity(PORTAL_CALLER, item.id, { quantity });
  }

  /**
   * The proration a plan change would settle now, computed as the change
   * computes it (the default mode: balanced on the next renewal invoice),
   * with the same refusals. Nothing is written.
   */
  async quote(id: number, variantId: number): Promise<PlanQuote> {
    const s = await this.subscriptions.findById(id);
    if (!s) throw BillingErrors.subscriptionNotFound();
    if (s.status === 'expired') throw BillingErrors.subscriptionExpired();
    if (s.status === 'cancelled')
      throw BillingErrors.cancelledFirstResume('variant_id');
    const plan = (await this.subscriptions.publishedPlans(s)).find(
      (p) => p.variant.id === variantId,
    );
    if (!plan) throw BillingErrors.planNotOffered();
    const [item] = (await this.subscriptions.firstItems(null, [id])).values();
    if (!item) throw BillingErrors.subscriptionNotFound();
    if (item.isUsageBased !== isUsageBased(plan.price))
      throw BillingErrors.billingModelSwitch();
    const oldPrice = await this.subscriptions.price(null, item.priceId);
    const { oldAmount, newAmount } = planChangeAmounts(
      s,
      item,
      oldPrice,
      plan.price,
    );
    const net =
      s.status === 'active'
        ? prorate({
            periodStart: s.currentPeriodStart,
            periodEnd: s.renewsAt,
            now: this.clock.now(),
            oldAmount,
            newAmount,
          }).net
        : 0;
    return {
      variantId,
      planName: plan.variant.name,
      price: this.planPrice(s, plan.price, item.quantity),
      net,
      netFormatted: formatMoney(Math.abs(net), s.currency),
    };
  }

  async page(id: number): Promise<SubscriptionPortalModel | null> {
    const s = await this.subscriptions.findById(id);
    if (!s) return null;
    const now = this.clock.now();
    const [[view], item, plans, invoices, storeName, limits] =
      await Promise.all([
        this.billing.views(null, [s], now),
        this.subscriptions
          .firstItems(null, [id])
          .then((items) => [...items.values()][0] ?? null),
        this.subscriptions.publishedPlans(s),
        this.invoices.ofSubscription(s),
        this.subscriptions.storeName(s.storeId),
        this.subscriptions.quantityLimits(null, s.variantId),
      ]);
    const price = item
      ? await this.subscriptions.price(null, item.priceId)
      : null;
    return {
      subscription: view,
      storeName: storeName ?? '',
      now,
      terms: renewalTerms(s, item, price),
      plans: plans
        .filter((p) => !item || isUsageBased(p.price) === item.isUsageBased)
        .map((p) => ({
          variantId: p.variant.id,
          name: p.variant.name,
          // The current plan at the price it renews at (custom_price, if any).
          price: this.planPrice(
            s,
            p.price,
            item?.quantity ?? 1,
            p.variant.id === s.variantId && item ? item : undefined,
          ),
          current: p.variant.id === s.variantId,
        })),
      quantity:
        item && !item.isUsageBased ? { value: item.quantity, ...limits } : null,
      invoices: invoices.map((invoice) => {
        const v = this.billing.invoiceView(invoice);
        return {
          date: invoice.createdAt,
          reason: invoice.billingReason,
          total: formatMoney(invoice.total, invoice.currency),
          status: invoice.status,
          url: v.invoiceUrl,
        };
      }),
      actions: this.actions(id, now),
    };
  }

  private planPrice(
    s: Subscription,
    price: Price,
    quantity: number,
    item: Pick<SubscriptionItem, 'customUnitPrice'> = { customUnitPrice: null },
  ): string {
    const every = perInterval(
      price.renewalIntervalUnit ?? s.intervalUnit,
      price.renewalIntervalQuantity ?? s.intervalQuantity,
    );
    if (isUsageBased(price)) {
      return `${unitPriceText(price, s.currency)} per unit ${every}`;
    }
    return `${formatMoney(amountFor(itemTerms(price, item), quantity), s.currency)} ${every}`;
  }

  private actions(id: number, now: Date): PortalActions {
    const expiresAt = new Date(now.getTime() + PORTAL_LINK_LIFETIME_MS);
    const sign = (action: string) =>
      this.signedUrls.sign(
        this.config.http.publicBaseUrl,
        `/portal/subscriptions/${id}/${action}`,
        { expiresAt },
      );
    return {
      cancel: sign('cancel'),
      resume: sign('resume'),
      planPreview: sign('plan/preview'),
      plan: sign('plan'),
      quantity: sign('quantity'),
    };
  }
}
