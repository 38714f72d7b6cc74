import { amountFor, PriceTerms } from './pricing';

/** One line of a subscription invoice as stored (jsonb); amounts in cents. */
export interface InvoiceLineRecord {
  description: string;
  quantity: number;
  /** Null when the price is not one flat amount per unit (packages, tiers, fractional cents). */
  unit_price: number | null;
  total: number;
}

/** How a plan is named on invoices, as on orders: the variant unless it is the default one. */
export function planName(productName: string, variantName: string): string {
  return variantName && variantName !== 'Default'
    ? `${productName} - ${variantName}`
    : productName;
}

function flatUnitPrice(terms: PriceTerms): number | null {
  if (terms.scheme !== 'standard') return null;
  if (terms.unitPriceDecimal) {
    const value = Number(terms.unitPriceDecimal);
    return Number.isInteger(value) ? value : null;
  }
  return terms.unitPrice ?? 0;
}

const SCHEME_NOTE: Record<PriceTerms['scheme'], (t: PriceTerms) => string> = {
  standard: () => '',
  package: (t) => ` (in packages of ${t.packageSize})`,
  graduated: () => ' (graduated pricing)',
  volume: () => ' (volume pricing)',
};

/** `quantity` units at a price: what `amountFor` charges, with the unit price when there is one. */
export function priceLine(
  description: string,
  quantity: number,
  terms: PriceTerms,
): InvoiceLineRecord {
  return {
    description: `${description}${SCHEME_NOTE[terms.scheme](terms)}`,
    quantity,
    unit_price: flatUnitPrice(terms),
    total: amountFor(terms, quantity),
  };
}

/** A single amount, e.g. a setup fee or a proration. */
export function amountLine(
  description: string,
  amount: number,
): InvoiceLineRecord {
  return { description, quantity: 1, unit_price: amount, total: amount };
}

/**
 * An initial invoice's lines: the plan as its order sold it (a metered plan,
 * given its price terms, at no usage yet) and the setup fee.
 */
export function initialLines(
  item: {
    productName: string;
    variantName: string;
    quantity: number;
    price: number;
  },
  setupFee: number,
  meteredTerms: PriceTerms | null,
): InvoiceLineRecord[] {
  const name = planName(item.productName, item.variantName);
  const lines: InvoiceLineRecord[] = [
    meteredTerms
      ? priceLine(`${name} - usage`, 0, meteredTerms)
      : {
          description: name,
          quantity: item.quantity,
          unit_price: item.price,
          total: item.price * item.quantity,
        },
  ];
  if (setupFee > 0) lines.push(amountLine('Setup fee', setupFee));
  return lines;
}

export function linesTotal(lines: InvoiceLineRecord[]): number {
  return lines.reduce((sum, line) => sum + line.total, 0);
}

/**
 * A renewal's charges plus the prorations carried from the last period. A
 * credit applies up to the charges (an invoice never goes below zero); what
 * is left of it carries over, so it is not a line yet.
 */
export function withCarriedProration(
  charges: InvoiceLineRecord[],
  pendingProration: number,
): InvoiceLineRecord[] {
  const applied = Math.max(pendingProration, -linesTotal(charges));
  if (applied === 0) return charges;
  return [
    ...charges,
    amountLine(
      applied > 0
        ? 'Prorated changes in the previous period'
        : 'Credit for prorated changes',
      applied,
    ),
  ];
}
