import { discountOff } from '../../common/money';
import type { Discount, DiscountView } from './discount.entity';

/**
 * Why a discount cannot be used right now, or null when it can. The messages
 * are shown to the buyer on the checkout page and in 422 details.
 */
export function discountRefusal(
  discount: DiscountView,
  now: Date,
  variantId: number,
): string | null {
  if (discount.status !== 'published')
    return `The discount code ${discount.code} is not valid.`;
  if (discount.startsAt && discount.startsAt.getTime() > now.getTime())
    return `The discount code ${discount.code} is not active yet.`;
  if (discount.expiresAt && discount.expiresAt.getTime() <= now.getTime())
    return `The discount code ${discount.code} has expired.`;
  if (
    discount.isLimitedRedemptions &&
    discount.redemptionsCount >= discount.maxRedemptions
  )
    return `The discount code ${discount.code} has been fully redeemed.`;
  if (discount.isLimitedToProducts && !discount.variantIds.includes(variantId))
    return `The discount code ${discount.code} does not apply to this product.`;
  return null;
}

/** Cents a code takes off a purchase's subtotal: the money module's discount rule. */
export function discountAmount(
  discount: Pick<Discount, 'amount' | 'amountType'>,
  subtotal: number,
): number {
  return discountOff(discount, subtotal);
}

/** Codes are stored in upper case; buyers may type them in any case. */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}
