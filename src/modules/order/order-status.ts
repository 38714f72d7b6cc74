export type OrderStatus = 'pending' | 'failed' | 'paid' | 'refunded';

const LABELS: Record<OrderStatus, string> = {
  pending: 'Pending',
  failed: 'Failed',
  paid: 'Paid',
  refunded: 'Refunded',
};

export function orderStatusLabel(status: OrderStatus): string {
  return LABELS[status];
}
