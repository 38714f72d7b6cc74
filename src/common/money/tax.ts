import { cents, decimal, roundDivide, share } from './rounding';

export interface TaxSplit {
  /** What the seller keeps: the taxable amount before tax. */
  net: number;
  tax: number;
  /** What the buyer pays: net + tax. */
  gross: number;
}

/**
 * Tax on an amount at `ratePercent`, rounded once.
 *
 * Exclusive (the amount is the net): tax = round(net × r / 100), added on top.
 *
 * Inclusive (the amount is the gross, as priced): net = round(gross / (1 +
 * r / 100)) and tax = gross − net. The net, not the tax, is what gets
 * rounded, as in the usual EU practice: the net is the taxable amount (VAT
 * Directive art. 73, the consideration without the VAT), it is the figure an
 * exclusive sale starts from, and tax is then whatever makes net + tax equal
 * the price to the cent. The other reading, tax = round(gross × r / (100 +
 * r)), agrees except on an exact half cent (3 cents at 20 %: net 2.5), where
 * it rounded the tax up instead of the net; invoices used it while orders used
 * this one, so the same sale could show 0 tax on its order and 1 on its
 * invoice. Both sides now call this function.
 *
 * Either way an exclusive sale of net N and an inclusive sale of its gross
 * N + tax(N) give the same split.
 */
export function splitTax(
  amount: number,
  ratePercent: number | string,
  inclusive: boolean,
): TaxSplit {
  const rate = decimal(ratePercent);
  const base = BigInt(amount);
  if (inclusive) {
    const hundred = 100n * rate.scale;
    const net = cents(roundDivide(base * hundred, hundred + rate.units));
    return { net, tax: amount - net, gross: amount };
  }
  const tax = cents(roundDivide(base * rate.units, 100n * rate.scale));
  return { net: amount, tax, gross: amount + tax };
}

/**
 * The tax given back by refunds of `refunded` cents of a sale that charged
 * `tax` in a `total`: the same share of the tax as of the total, rounded
 * once over everything refunded so far (so partial refunds never add up to
 * more or less than the tax, and a full refund returns all of it).
 */
export function refundedTax(
  tax: number,
  total: number,
  refunded: number,
): number {
  if (total <= 0 || refunded <= 0) return 0;
  return share(tax, Math.min(refunded, total), total);
}
