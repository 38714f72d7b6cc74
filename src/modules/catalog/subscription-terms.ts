import { formatMoney, minorDigits } from '../../common/money';
import { Price } from './price.entity';

const DATE = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeZone: 'UTC',
});

type Unit = 'day' | 'week' | 'month' | 'year';

/** "per month", "every 3 months". */
export function perInterval(unit: Unit, quantity: number): string {
  return quantity === 1 ? `per ${unit}` : `every ${quantity} ${unit}s`;
}

/** A metered unit price in (possibly fractional) cents: "$0.0125". */
export function unitPriceText(price: Price, currency: string): string {
  const cents = Number(price.unitPriceDecimal ?? price.unitPrice ?? 0);
  const digits = minorDigits(currency);
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: Math.min(20, digits + 10),
  }).format(cents / 10 ** digits);
}

export interface TermsInput {
  price: Price;
  /** The recurring charge in minor units for the quantity (before tax). */
  amount: number;
  currency: string;
  /** When the first (or next) charge falls: the trial's end, or the renewal. */
  firstChargeAt: Date;
  /** Whether a free trial runs until `firstChargeAt`. */
  trial: boolean;
}

/**
 * The auto-renewal terms a buyer is shown before paying and afterwards:
 * "14-day free trial, then $12.00 per month from Dec 9, 2026; cancel any
 * time", or for a metered plan "$0.01 per unit, billed in arrears per month
 * from Dec 9, 2026; cancel any time". Amounts before tax and discounts.
 */
export function subscriptionTerms(input: TermsInput): string | null {
  const { price, amount, currency } = input;
  const unit = price.renewalIntervalUnit;
  const every = price.renewalIntervalQuantity;
  if (price.category !== 'subscription' || !unit || !every) return null;
  const trial =
    input.trial && price.trialIntervalUnit && price.trialIntervalQuantity
      ? `${price.trialIntervalQuantity}-${price.trialIntervalUnit} free trial, then `
      : '';
  const interval = perInterval(unit, every);
  const charge = price.usageAggregation
    ? `${unitPriceText(price, currency)} per unit, billed in arrears ${interval}`
    : `${formatMoney(amount, currency)} ${interval}`;
  return `${trial}${charge} from ${DATE.format(input.firstChargeAt)}; cancel any time`;
}
