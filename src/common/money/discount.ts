import { percentOf } from './rounding';

export interface DiscountTerms {
  amountType: 'percent' | 'fixed';
  /** Percent (0–100) or cents. */
  amount: number;
}

/**
 * Cents a discount takes off a subtotal: a percentage of it (rounded like
 * every amount, capped at 100 %) or a fixed amount, never more than the
 * subtotal and never below zero, so nothing it applies to turns negative.
 */
export function discountOff(terms: DiscountTerms, subtotal: number): number {
  if (subtotal <= 0) return 0;
  const amount =
    terms.amountType === 'percent'
      ? percentOf(subtotal, Math.min(Math.max(terms.amount, 0), 100))
      : terms.amount;
  return Math.max(0, Math.min(amount, subtotal));
}
