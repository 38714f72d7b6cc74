import { forSeconds, secondsBetween } from '../../common/money';
import { Price } from '../catalog/price.entity';
import { periodEnd } from './billing-period';
import { amountFor } from './pricing';
import { itemTerms, priceTerms } from './subscription-billing.service';
import { SubscriptionItem } from './subscription-item.entity';
import { Subscription } from './subscription.entity';

/**
 * What a plan change compares for proration: the old plan's amount for the
 * item's quantity, and the new plan's over the current period (a plan with
 * another interval is compared per second). Metered plans commit to nothing.
 * Used by the change itself and by the portal's quote before confirming.
 */
export function planChangeAmounts(
  s: Subscription,
  item: SubscriptionItem,
  oldPrice: Price | null,
  price: Price,
): { oldAmount: number; newAmount: number } {
  if (item.isUsageBased) return { oldAmount: 0, newAmount: 0 };
  const oldAmount = amountFor(itemTerms(oldPrice!, item), item.quantity);
  const newInterval = {
    unit: price.renewalIntervalUnit!,
    quantity: price.renewalIntervalQuantity!,
  };
  const newAmount = forSeconds(
    amountFor(priceTerms(price), item.quantity),
    secondsBetween(s.currentPeriodStart, s.renewsAt),
    secondsBetween(
      s.currentPeriodStart,
      periodEnd(s.currentPeriodStart, newInterval, s.billingAnchor),
    ),
  );
  return { oldAmount, newAmount };
}
