import { periodEnd, trialEnd } from '../billing/billing-period';
import { Price } from '../catalog/price.entity';
import { isUsageBased } from '../catalog/price-rules';
import { trialOf } from '../catalog/signup-charge';
import { subscriptionTerms } from '../catalog/subscription-terms';

/**
 * The auto-renewal terms shown next to the checkout's total (null for a
 * one-time price): the trial, then the recurring amount for the quantity
 * and the date of the first charge. A trial's first charge falls when it
 * ends, the same rule the purchase uses; a metered plan's at the end of its
 * first period (billed in arrears); otherwise today.
 */
export function checkoutTerms(input: {
  price: Price;
  unitPrice: number;
  quantity: number;
  currency: string;
  skipTrial: boolean;
  now: Date;
}): string | null {
  const { price, now } = input;
  if (
    price.category !== 'subscription' ||
    !price.renewalIntervalUnit ||
    !price.renewalIntervalQuantity
  )
    return null;
  const trial = trialOf(price, input.skipTrial);
  const start = trial ? trialEnd(now, trial) : now;
  const firstChargeAt = isUsageBased(price)
    ? periodEnd(
        start,
        {
          unit: price.renewalIntervalUnit,
          quantity: price.renewalIntervalQuantity,
        },
        start.getUTCDate(),
      )
    : start;
  return subscriptionTerms({
    price,
    amount: input.unitPrice * input.quantity,
    currency: input.currency,
    firstChargeAt,
    trial: trial !== null,
  });
}
