import { toUsdCents } from '../../common/money';

export interface TaxRate {
  name: string;
  /** Percent. */
  rate: number;
}

export interface PricingInput {
  currency: string;
  /** USD per unit of `currency`. */
  currencyRate: number;
  unitPrice: number;
  quantity: number;
  setupFee: number;
  /** Cents taken off the subtotal (already capped by the discount rules). */
  discount: number;
  tax: TaxRate | null;
  taxInclusive: boolean;
}

export interface Totals {
  currency: string;
  currencyRate: number;
  subtotal: number;
  discountTotal: number;
  setupFee: number;
  tax: number;
  total: number;
  subtotalUsd: number;
  discountTotalUsd: number;
  setupFeeUsd: number;
  taxUsd: number;
  totalUsd: number;
  taxName: string | null;
  taxRate: number;
  taxInclusive: boolean;
}

/**
 * An order's money. The discount comes off the subtotal; the setup fee is
 * added after it; tax applies to what is left. Exclusive tax is added on top;
 * inclusive tax is carved out of the total, which then stays as priced.
 */
export function computeTotals(input: PricingInput): Totals {
  const subtotal = input.unitPrice * input.quantity;
  const discountTotal = Math.min(Math.max(input.discount, 0), subtotal);
  const taxable = subtotal - discountTotal + input.setupFee;
  const rate = input.tax?.rate ?? 0;
  let tax: number;
  let total: number;
  if (input.taxInclusive) {
    tax = taxable - Math.round(taxable / (1 + rate / 100));
    total = taxable;
  } else {
    tax = Math.round((taxable * rate) / 100);
    total = taxable + tax;
  }
  const usd = (cents: number) =>
    toUsdCents(cents, input.currency, input.currencyRate);
  return {
    currency: input.currency,
    currencyRate: input.currencyRate,
    subtotal,
    discountTotal,
    setupFee: input.setupFee,
    tax,
    total,
    subtotalUsd: usd(subtotal),
    discountTotalUsd: usd(discountTotal),
    setupFeeUsd: usd(input.setupFee),
    taxUsd: usd(tax),
    totalUsd: usd(total),
    taxName: input.tax && rate > 0 ? input.tax.name : null,
    taxRate: rate,
    taxInclusive: input.taxInclusive,
  };
}
