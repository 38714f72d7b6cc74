import { AppError } from '../../common/app-error';

export type OrderStatus =
  'pending' | 'failed' | 'paid' | 'refunded' | 'partial_refund';

const LABELS: Record<OrderStatus, string> = {
  pending: 'Pending',
  failed: 'Failed',
  paid: 'Paid',
  refunded: 'Refunded',
  partial_refund: 'Partial refund',
};

export function orderStatusLabel(status: OrderStatus): string {
  return LABELS[status];
}

/** Orders that took money and still hold some of it; they count as sales. */
export const SALE_STATUSES: OrderStatus[] = ['paid', 'partial_refund'];

/**
 * The status after refunding `amount` more cents. Only paid orders with money
 * left can be refunded; the whole remainder gives `refunded`, less gives
 * `partial_refund`.
 */
export function refundTransition(
  order: { status: OrderStatus; total: number; refundedAmount: number },
  amount: number,
): OrderStatus {
  if (!SALE_STATUSES.includes(order.status)) {
    throw AppError.unprocessable(
      `Only a paid order can be refunded; this one is ${LABELS[order.status].toLowerCase()}.`,
    );
  }
  const remaining = order.total - order.refundedAmount;
  if (amount > remaining) {
    throw AppError.attribute(
      'amount',
      `The refund exceeds what is left to refund (${remaining} cents).`,
    );
  }
  return amount === remaining ? 'refunded' : 'partial_refund';
}
