import { discountOff } from '../../common/money';
import type { Discount, DiscountView } from './discount.entity';
import { DiscountRefusal, DiscountRefusals } from './discount.errors';

/**
 * Why a discount cannot be used right now, or null when it can. The details
 * are shown to the buyer on the checkout page and in 422 details.
 */
export function discountRefusal(
  discount: DiscountView,
  now: Date,
  variantId: number,
): DiscountRefusal | null {
  if (discount.status !== 'published')
    return DiscountRefusals.invalid(discount.code);
  if (discount.startsAt && discount.startsAt.getTime() > now.getTime())
    return DiscountRefusals.notActiveYet(discount.code);
  if (discount.expiresAt && discount.expiresAt.getTime() <= now.getTime())
    return DiscountRefusals.expired(discount.code);
  if (
    discount.isLimitedRedemptions &&
    discount.redemptionsCount >= discount.maxRedemptions
  )
    return DiscountRefusals.exhausted(discount.code);
  if (discount.isLimitedToProducts && !discount.variantIds.includes(variantId))
    return DiscountRefusals.notApplicable(discount.code);
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
