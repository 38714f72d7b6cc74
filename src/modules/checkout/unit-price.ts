import type { AppError } from '../../common/app-error';
import { formatMoney, parseMajorUnits } from '../../common/money';
import { Price } from '../catalog/price.entity';
import { CheckoutErrors } from './checkout.errors';

/** Integer columns: no amount, alone or multiplied out, may pass this. */
export const MAX_CENTS = 2_147_483_647;

/**
 * A buyer's pay-what-you-want amount as given: major units as typed on the
 * hosted page (`amount`, "12.50"), or integer cents on the JSON path
 * (`custom_price`, like a checkout's own `custom_price`).
 */
export interface BuyerAmount {
  value: string;
  unit: 'major' | 'cents';
}

/** What one unit costs before discounts: the price record's own rule per category. */
export function unitPriceOf(price: Price): number {
  switch (price.category) {
    case 'lead_magnet':
      return 0;
    case 'pwyw':
      return price.suggestedPrice ?? price.minPrice ?? price.unitPrice ?? 0;
    default:
      return price.unitPrice ?? 0;
  }
}

/** A pay-what-you-want price whose checkout does not fix the price itself. */
export function buyerSetsPrice(
  price: Price,
  checkoutPrice: number | null,
): boolean {
  return price.category === 'pwyw' && checkoutPrice === null;
}

/**
 * One unit's price for this purchase. A checkout's `custom_price` wins; a
 * pay-what-you-want price takes the buyer's amount (the suggested price when
 * none is given), never below `min_price`. The page's field is ignored where
 * it does not apply (it stays in the form when the buyer picks another
 * variant); a JSON `custom_price` there is refused rather than dropped.
 */
export function chosenUnitPrice(
  price: Price,
  checkoutPrice: number | null,
  amount: BuyerAmount | undefined,
  currency: string,
): number {
  // An empty page field means "not given"; an empty JSON value is wrong.
  const given =
    amount !== undefined &&
    (amount.unit === 'cents' || amount.value.trim() !== '');
  if (!buyerSetsPrice(price, checkoutPrice)) {
    if (given && amount.unit === 'cents')
      throw refuse(
        amount,
        checkoutPrice !== null
          ? 'This checkout sets the price; custom_price cannot change it.'
          : 'custom_price applies only to pay-what-you-want variants.',
      );
    return checkoutPrice ?? unitPriceOf(price);
  }
  if (!given) return unitPriceOf(price);
  const cents =
    amount.unit === 'cents'
      ? /^\d{1,10}$/.test(amount.value.trim())
        ? Number(amount.value.trim())
        : null
      : parseMajorUnits(amount.value, currency);
  if (cents === null)
    throw refuse(
      amount,
      amount.unit === 'cents'
        ? 'custom_price must be a whole number of cents, such as 1250.'
        : 'Enter the amount you want to pay as a number, such as 12.50.',
    );
  if (cents > MAX_CENTS) throw refuse(amount, 'The amount is too large.');
  const minimum = price.minPrice ?? 0;
  if (cents < minimum)
    throw refuse(
      amount,
      `The amount must be at least ${formatMoney(minimum, currency)}.`,
    );
  return cents;
}

function refuse(amount: BuyerAmount, detail: string): AppError {
  return CheckoutErrors.invalidAmount(
    amount.unit === 'cents' ? 'custom_price' : 'amount',
    detail,
  );
}
