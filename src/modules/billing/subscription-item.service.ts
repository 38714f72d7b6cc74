import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { Principal } from '../../common/principal';
import { prorate } from '../../common/money';
import { formatTimestamp } from '../../common/timestamps';
import { Transactions } from '../../database/transactions';
import { BillingCaller, isPortalCaller } from './billing-caller';
import { PaymentAttempt } from '../payment/payment-attempt.entity';
import { CurrentUsage } from './billing-views';
import { InvoiceCollection } from './invoice-collection';
import { ProrationCharges } from './proration-charges';
import { planName } from './invoice-lines';
import { SubscriptionItemUpdateAttributes } from './billing.dto';
import { withinLimits } from '../catalog/quantity-limits';
import { amountFor } from './pricing';
import { prorationMode } from './proration';
import {
  periodEndOf,
  priceTerms,
  SubscriptionBilling,
} from './subscription-billing.service';
import { SubscriptionItem } from './subscription-item.entity';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { BillingErrors } from './billing.errors';

/** The end of the period usage is being reported for. */
export const openPeriodEnd = (s: Subscription) =>
  s.status === 'on_trial' ? s.renewsAt : periodEndOf(s);

/** Subscription items: reads, quantity changes with proration, current usage. */
@Injectable()
export class SubscriptionItemService {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly billing: SubscriptionBilling,
    private readonly prorations: ProrationCharges,
    private readonly collection: InvoiceCollection,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /**
   * PATCH quantity (spec 4.7): 422 for usage-based items; prorated by the
   * flags, like a plan change. Sends `subscription_updated`. An immediate
   * charge is made once the change committed (see ProrationCharges).
   */
  async updateQuantity(
    caller: BillingCaller,
    id: number,
    input: SubscriptionItemUpdateAttributes,
  ): Promise<SubscriptionItem> {
    const { item, charge } = await this.transactions.run(async (manager) => {
      const now = this.clock.now();
      const portal = isPortalCaller(caller);
      const [visible] = portal
        ? [await this.subscriptions.findItem(manager, id)]
        : await this.subscriptions.findVisibleItems(caller, [id], manager);
      if (!visible) throw AppError.notFound();
      const s = await this.subscriptions.lock(manager, visible.subscriptionId);
      const item = await this.subscriptions.findItem(manager, id);
      if (!s || !item) throw AppError.notFound();
      if (item.isUsageBased) {
        throw BillingErrors.usageBasedQuantity();
      }
      // The plan's variant sets the limits, for the API as for the portal.
      const limits = await this.subscriptions.quantityLimits(
        manager,
        s.variantId,
      );
      if (!withinLimits(input.quantity, limits)) {
        throw BillingErrors.quantityOutOfRange(limits.min, limits.max);
      }
      if (s.status === 'cancelled' || s.status === 'expired') {
        throw BillingErrors.itemsLocked(s.status);
      }
      if (input.quantity === item.quantity) return { item, charge: null };
      const oldQuantity = item.quantity;
      const price = await this.subscriptions.price(manager, item.priceId);
      const terms = priceTerms(price!);
      const oldAmount = amountFor(terms, item.quantity);
      const newAmount = amountFor(terms, input.quantity);
      item.quantity = input.quantity;
      item.updatedAt = now;
      await this.subscriptions.saveItem(manager, item);
      const flags = {
        invoiceImmediately: input.invoice_immediately,
        disableProrations: input.disable_prorations,
      };
      let charge: PaymentAttempt | null = null;
      // Only a running paid period has anything to prorate.
      if (s.status === 'active' && prorationMode(flags) !== 'none') {
        const { net } = prorate({
          periodStart: s.currentPeriodStart,
          periodEnd: s.renewsAt,
          now,
          oldAmount,
          newAmount,
        });
        charge = await this.prorations.settle(
          manager,
          s,
          net,
          flags,
          now,
          `${planName(s.productName, s.variantName)}: quantity ${oldQuantity} to ${input.quantity}, prorated`,
        );
      }
      await this.billing.save(manager, s, now);
      await this.billing.emit(manager, ['subscription_updated'], s, now);
      return { item, charge };
    });
    if (charge) await this.collection.complete(charge);
    return item;
  }

  /** GET current-usage (spec 2.9): 404 unless the item is usage-based. */
  async currentUsage(principal: Principal, id: number): Promise<CurrentUsage> {
    const [item] = await this.subscriptions.findVisibleItems(principal, [id]);
    if (!item || !item.isUsageBased) throw AppError.notFound();
    const [s] = await this.subscriptions.findVisible(principal, [
      item.subscriptionId,
    ]);
    const price = await this.subscriptions.price(null, item.priceId);
    if (!s || !price) throw AppError.notFound();
    return {
      period_start: formatTimestamp(s.currentPeriodStart),
      period_end: formatTimestamp(openPeriodEnd(s)),
      quantity: await this.billing.usageQuantity(
        null,
        item,
        price,
        s.currentPeriodStart,
      ),
      interval_unit: s.intervalUnit,
      interval_quantity: s.intervalQuantity,
    };
  }
}
