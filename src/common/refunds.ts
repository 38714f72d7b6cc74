import { toUsdCents } from './money';
import { RefundErrors } from './common.errors';

/** What a refund reads of a charged record: an order or a subscription invoice. */
export interface Refundable {
  status: string;
  currency: string;
  total: number;
  totalUsd: number;
  refundedAmount: number;
  /** The gateway's charge; a record without one took no money. */
  paymentReference: string | null;
}

export interface RefundOutcome {
  /** The charge to refund at the gateway. */
  paymentId: string;
  /** Cents given back by this refund. */
  amount: number;
  /** The record's refund fields after it; the caller stores them. */
  fields: {
    status: 'paid' | 'refunded';
    refundedAmount: number;
    refundedAmountUsd: number;
    /** Set by the refund that gives back the last of the money. */
    refundedAt: Date | null;
  };
}

/**
 * The refund rule of orders and subscription invoices alike. Only a paid
 * record that took money can be refunded, by at most what is left (all of
 * it when `amount` is omitted). A partial refund keeps the record `paid`
 * and raises `refunded_amount`: the spec's statuses have no partial one
 * (an invoice's `refunded` means "paid, since fully refunded"). The refund
 * that gives back the rest makes it `refunded`, with `refunded_at`. USD is
 * converted at the record's frozen rate, and a full refund matches
 * `total_usd` exactly. `pending` is what refunds still under way at the
 * processor will give back: it is no longer refundable.
 */
export function nextRefund(
  record: Refundable,
  noun: 'order' | 'invoice',
  amount: number | undefined,
  currencyRate: number,
  now: Date,
  pending = 0,
): RefundOutcome {
  if (record.status !== 'paid') throw RefundErrors.notPaid(noun, record.status);
  const left = record.total - record.refundedAmount - pending;
  const paymentId = record.paymentReference;
  if (left <= 0 || !paymentId) throw RefundErrors.nothingToRefund(noun);
  const value = amount ?? left;
  if (!Number.isSafeInteger(value) || value < 1)
    throw RefundErrors.amountNotPositive();
  if (value > left) throw RefundErrors.amountOverLeft(left);
  const refundedAmount = record.refundedAmount + value;
  const full = refundedAmount === record.total;
  return {
    paymentId,
    amount: value,
    fields: {
      status: full ? 'refunded' : 'paid',
      refundedAmount,
      refundedAmountUsd: full
        ? record.totalUsd
        : toUsdCents(refundedAmount, record.currency, currencyRate),
      refundedAt: full ? now : null,
    },
  };
}

/**
 * A refund the processor reports failed (or canceled) after it was
 * recorded: the money stays with the merchant, so `amount` is no longer
 * refunded. The record is `paid` again (a refunded one too), with what the
 * other refunds gave back.
 */
export function revertedRefund(
  record: Refundable,
  amount: number,
  currencyRate: number,
): RefundOutcome['fields'] {
  const refundedAmount = Math.max(0, record.refundedAmount - amount);
  return {
    status: 'paid',
    refundedAmount,
    refundedAmountUsd: toUsdCents(
      refundedAmount,
      record.currency,
      currencyRate,
    ),
    refundedAt: null,
  };
}
