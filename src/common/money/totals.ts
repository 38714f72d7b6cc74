import { splitTax } from './tax';
import { toUsdCents } from './usd';

export interface SaleInput {
  /** What is sold before any discount: unit price × quantity, or an invoice's lines. */
  subtotal: number;
  /** Cents off the subtotal (from `discountOff`); held to [0, subtotal] here too. */
  discount: number;
  /** Added after the discount and taxed with the rest. */
  setupFee: number;
  /** Percent; 0 when no tax applies. */
  taxRate: number | string;
  /** Whether the amounts already contain the tax. */
  taxInclusive: boolean;
  currency: string;
  /** USD per unit of `currency`, frozen on the record. */
  usdRate: number | string;
}

export interface SaleTotals {
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
}

/**
 * The money of one sale, the same for an order (and its checkout preview)
 * and for a subscription invoice: the discount comes off the subtotal, the
 * setup fee is added after it, and tax applies to what is left, added on top
 * (exclusive) or carved out of it (inclusive, where the total stays as
 * priced). Each figure is converted to USD on its own, rounded once.
 */
export function saleTotals(input: SaleInput): SaleTotals {
  const discountTotal = Math.min(
    Math.max(input.discount, 0),
    Math.max(input.subtotal, 0),
  );
  const taxable = input.subtotal - discountTotal + input.setupFee;
  const { tax, gross: total } = splitTax(
    taxable,
    input.taxRate,
    input.taxInclusive,
  );
  const usd = (amount: number) =>
    toUsdCents(amount, input.currency, input.usdRate);
  return {
    subtotal: input.subtotal,
    discountTotal,
    setupFee: input.setupFee,
    tax,
    total,
    subtotalUsd: usd(input.subtotal),
    discountTotalUsd: usd(discountTotal),
    setupFeeUsd: usd(input.setupFee),
    taxUsd: usd(tax),
    totalUsd: usd(total),
  };
}
