/**
 * Money, the one owner of its rules (DESIGN 7a): integer minor units plus a
 * currency code, formatted through Intl.NumberFormat, and every rule that
 * rounds an amount — tax, discounts, proration, USD conversion and the
 * totals of a sale — used alike by checkout, billing, refunds and invoices.
 * Framework-free plain functions.
 */
export {
  formatMoney,
  minorDigits,
  parseMajorUnits,
  toMajorUnits,
} from './format';
export {
  cents,
  decimal,
  percentOf,
  roundDivide,
  share,
  timesDecimalCents,
} from './rounding';
export type { Decimal } from './rounding';
export { toUsdCents } from './usd';
export { refundedTax, splitTax } from './tax';
export type { TaxSplit } from './tax';
export { discountOff } from './discount';
export type { DiscountTerms } from './discount';
export { forSeconds, prorate, secondsBetween } from './proration';
export type { Proration, ProrationInput } from './proration';
export { saleTotals } from './totals';
export type { SaleInput, SaleTotals } from './totals';
export { convertMinorUnits, crossRate } from './convert';
