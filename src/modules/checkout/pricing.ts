import { saleTotals, SaleTotals } from '../../common/money';

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

export interface Totals extends SaleTotals {
  currency: string;
  currencyRate: number;
  taxName: string | null;
  taxRate: number;
  taxInclusive: boolean;
}

/** An order's money (and its checkout preview's): the money module's totals of the sale. */
export function computeTotals(input: PricingInput): Totals {
  const rate = input.tax?.rate ?? 0;
  return {
    currency: input.currency,
    currencyRate: input.currencyRate,
    ...saleTotals({
      subtotal: input.unitPrice * input.quantity,
      discount: input.discount,
      setupFee: input.setupFee,
      taxRate: rate,
      taxInclusive: input.taxInclusive,
      currency: input.currency,
      usdRate: input.currencyRate,
    }),
    taxName: input.tax && rate > 0 ? input.tax.name : null,
    taxRate: rate,
    taxInclusive: input.taxInclusive,
  };
}
