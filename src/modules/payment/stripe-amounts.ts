import { minorDigits } from '../../common/money';
import { amountNotRepresentable } from './payment.errors';

/** Stripe's zero-decimal currencies (https://docs.stripe.com/currencies#zero-decimal). */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
/** Stripe's three-decimal currencies: amounts in thousandths, ending in 0. */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** How many decimals Stripe's integer amounts of a currency have. */
export function stripeDigits(currency: string): number {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

/**
 * Zest keeps money in the currency's ISO 4217 minor units (JPY 500 is
 * ¥500); Stripe counts in its own units, which differ for a few currencies
 * (ISK has no minor unit in ISO but two decimals at Stripe; three-decimal
 * amounts must end in 0). Refuses (422) an amount Stripe cannot take.
 */
export function toStripeAmount(amount: number, currency: string): number {
  const shift = stripeDigits(currency) - minorDigits(currency);
  const scaled = shift >= 0 ? amount * 10 ** shift : amount / 10 ** -shift;
  const exact =
    Number.isSafeInteger(scaled) &&
    (!THREE_DECIMAL.has(currency.toUpperCase()) || scaled % 10 === 0);
  if (!exact) throw amountNotRepresentable(amount, currency);
  return scaled;
}

/** A Stripe amount back in the currency's ISO minor units. */
export function fromStripeAmount(amount: number, currency: string): number {
  const shift = stripeDigits(currency) - minorDigits(currency);
  return shift >= 0 ? amount / 10 ** shift : amount * 10 ** -shift;
}
