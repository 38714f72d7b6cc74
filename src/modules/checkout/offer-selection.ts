import { Variant } from '../catalog/variant.entity';
import {
  QuantityLimits,
  quantityLimitsOf,
  withinLimits,
} from '../catalog/quantity-limits';
import { Checkout } from './checkout.entity';
import { PurchaseTarget } from './checkout.repository';
import { CheckoutErrors } from './checkout.errors';

/** What is for sale at a checkout URL or a variant's buy_now_url. */
export interface Offer {
  checkout: Checkout | null;
  target: PurchaseTarget;
  testMode: boolean;
  /** The variants the buyer may pick from, in display order. */
  variants: Variant[];
}

/** The variant the buyer chose, or the offer's own. */
export function selectVariant(
  offer: Offer,
  variantId: string | undefined,
): Variant {
  if (variantId === undefined || variantId === '') return offer.target.variant;
  const chosen = offer.variants.find((v) => String(v.id) === variantId);
  if (!chosen) throw CheckoutErrors.variantNotOffered();
  return chosen;
}

const clamp = (value: number, limits: QuantityLimits) =>
  Math.min(limits.max, Math.max(limits.min, value));

/**
 * The quantity a checkout starts with: the checkout's preset for the
 * variant, else its `quantity` option, else 1, within the variant's limits.
 */
export function defaultQuantity(offer: Offer, variant: Variant): number {
  const preset = offer.checkout?.checkoutData.variant_quantities.find(
    (entry) => entry.variant_id === variant.id,
  );
  return clamp(
    preset?.quantity ?? offer.checkout?.checkoutOptions.quantity ?? 1,
    quantityLimitsOf(variant),
  );
}

/**
 * The buyer's quantity, as typed: a whole number within the variant's
 * `min_quantity` and `max_quantity` (422 `invalid_quantity` otherwise); the
 * default when none was sent.
 */
export function chosenQuantity(
  offer: Offer,
  variant: Variant,
  raw: string | undefined,
): number {
  if (raw === undefined || raw === '') return defaultQuantity(offer, variant);
  const limits = quantityLimitsOf(variant);
  const quantity = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!withinLimits(quantity, limits))
    throw CheckoutErrors.invalidQuantity(limits.min, limits.max);
  return quantity;
}
