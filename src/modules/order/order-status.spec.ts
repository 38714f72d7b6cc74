import { AppError } from '../../common/app-error';
import { thrownAppError } from '../../../test/support/app-error';
import { refundTransition } from './order-status';

describe('refundTransition', () => {
  const paid = { status: 'paid' as const, total: 1000, refundedAmount: 0 };

  it('refunds in parts and then fully', () => {
    expect(refundTransition(paid, 400)).toBe('partial_refund');
    expect(
      refundTransition(
        { ...paid, status: 'partial_refund', refundedAmount: 400 },
        600,
      ),
    ).toBe('refunded');
    expect(refundTransition(paid, 1000)).toBe('refunded');
  });

  it('refuses over-refunds and unpaid orders with 422', () => {
    const over = thrownAppError(() => refundTransition(paid, 1001));
    expect(over.status).toBe(422);
    expect(over.errors[0].source).toEqual({
      pointer: '/data/attributes/amount',
    });
    for (const status of ['failed', 'refunded', 'pending'] as const) {
      const error = thrownAppError(() =>
        refundTransition({ ...paid, status }, 1),
      );
      expect(error).toBeInstanceOf(AppError);
      expect(error.status).toBe(422);
    }
  });
});
