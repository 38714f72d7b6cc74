import type { PriceFields } from './price-rules';
import { isUsageBased } from './price-rules';
import type { IntervalUnit } from './price.entity';

type SignupPrice = Pick<
  PriceFields,
  | 'category'
  | 'trialIntervalUnit'
  | 'trialIntervalQuantity'
  | 'usageAggregation'
>;

/**
 * The trial a purchase of this price starts, or null: a subscription price
 * with a trial interval, unless the checkout says `skip_trial`.
 */
export function trialOf(
  price: SignupPrice,
  skipTrial: boolean,
): { unit: IntervalUnit; quantity: number } | null {
  if (
    price.category !== 'subscription' ||
    price.trialIntervalUnit === null ||
    price.trialIntervalQuantity === null ||
    skipTrial
  )
    return null;
  return {
    unit: price.trialIntervalUnit,
    quantity: price.trialIntervalQuantity,
  };
}

/**
 * What one unit costs at signup, the one rule for the checkout preview, the
 * first order and the initial invoice: only what is due now. A trial defers
 * the first charge of the price to the first renewal, and a metered plan's
 * usage is billed in arrears by the renewals, so either charges nothing for
 * the price now (the setup fee, which is not per unit, is still due).
 */
export function unitPriceAtSignup(
  price: SignupPrice,
  skipTrial: boolean,
  listedUnitPrice: number,
): number {
  return trialOf(price, skipTrial) !== null || isUsageBased(price)
    ? 0
    : listedUnitPrice;
}

/** The one-off setup fee a signup also pays (0 when the price has none). */
export function setupFeeAtSignup(
  price: Pick<PriceFields, 'setupFeeEnabled' | 'setupFee'>,
): number {
  return price.setupFeeEnabled ? (price.setupFee ?? 0) : 0;
}
