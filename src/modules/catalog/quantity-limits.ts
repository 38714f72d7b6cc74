import { CatalogErrors } from './catalog.errors';

/**
 * A variant's quantity limits (extension attributes `min_quantity` and
 * `max_quantity`): the one rule the hosted checkout, the purchase, the API's
 * subscription-item quantity update and the portal's quantity form apply.
 */
export const DEFAULT_MIN_QUANTITY = 1;
export const DEFAULT_MAX_QUANTITY = 1000;
/** The largest `max_quantity` a variant may set. */
export const QUANTITY_CEILING = 10000;

export interface QuantityLimits {
  min: number;
  max: number;
}

export function quantityLimitsOf(variant: {
  minQuantity: number;
  maxQuantity: number;
}): QuantityLimits {
  return { min: variant.minQuantity, max: variant.maxQuantity };
}

export function withinLimits(quantity: number, limits: QuantityLimits) {
  return (
    Number.isInteger(quantity) &&
    quantity >= limits.min &&
    quantity <= limits.max
  );
}

/** A variant's new limits, refused when the minimum exceeds the maximum. */
export function checkQuantityLimits(limits: QuantityLimits): void {
  if (limits.min > limits.max)
    throw CatalogErrors.quantityLimitsInverted(limits.min, limits.max);
}
