import { saleTotals } from '../../common/money';
import { InvoiceLineRecord, linesTotal } from './invoice-lines';

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
 * An invoice's totals: the money module's totals of the sale its lines make,
 * under the subscription's frozen tax terms, so an initial invoice shows
 * exactly what its order charged. A setup fee is one of the lines, so the
 * invoice's subtotal includes it (and its `_usd`, converted on its own as
 * the order's `setup_fee_usd` is); `setupFee` says which part of the lines
 * it is, since the discount never applies to it.
 */
export function invoiceAmounts(input: {
  lines: InvoiceLineRecord[];
  setupFee?: number;
  discountTotal: number;
  taxRate: number | string;
  taxInclusive: boolean;
  currency: string;
  usdRate: number | string;
}): InvoiceAmounts {
  const setupFee = input.setupFee ?? 0;
  const t = saleTotals({
    subtotal: linesTotal(input.lines) - setupFee,
    discount: input.discountTotal,
    setupFee,
    taxRate: input.taxRate,
    taxInclusive: input.taxInclusive,
    currency: input.currency,
    usdRate: input.usdRate,
  });
  return {
    subtotal: t.subtotal + t.setupFee,
    discountTotal: t.discountTotal,
    tax: t.tax,
    total: t.total,
    subtotalUsd: t.subtotalUsd + t.setupFeeUsd,
    discountTotalUsd: t.discountTotalUsd,
    taxUsd: t.taxUsd,
    totalUsd: t.totalUsd,
  };
}
