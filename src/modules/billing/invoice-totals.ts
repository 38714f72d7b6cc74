import { percentOf, toUsdCents } from '../../common/money';

export interface InvoiceAmounts {
  subtotal: number;
  discountTotal: number;
  tax: number;
  total: number;
  subtotalUsd: number;
  discountTotalUsd: number;
  taxUsd: number;
  totalUsd: number;
}

/**
 * Totals of an invoice: tax added on top (exclusive) or carved out of the
 * amount (inclusive, where the price already contains it), then every figure
 * converted to USD cents at the frozen rate.
 */
export function invoiceAmounts(input: {
  subtotal: number;
  discountTotal: number;
  taxRatePercent: number;
  taxInclusive: boolean;
  currency: string;
  usdRate: number;
}): InvoiceAmounts {
  const base = Math.max(0, input.subtotal - input.discountTotal);
  const tax = input.taxInclusive
    ? Math.round((base * input.taxRatePercent) / (100 + input.taxRatePercent))
    : percentOf(base, input.taxRatePercent);
  const total = input.taxInclusive ? base : base + tax;
  const usd = (cents: number) =>
    toUsdCents(cents, input.currency, input.usdRate);
  return {
    subtotal: input.subtotal,
    discountTotal: input.discountTotal,
    tax,
    total,
    subtotalUsd: usd(input.subtotal),
    discountTotalUsd: usd(input.discountTotal),
    taxUsd: usd(tax),
    totalUsd: usd(total),
  };
}
