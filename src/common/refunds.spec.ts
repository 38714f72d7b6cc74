import fc from 'fast-check';
import { thrownAppError } from '../../test/support/app-error';
import { toUsdCents } from './money';
import { nextRefund, Refundable } from './refunds';

describe('nextRefund', () => {
  const now = new Date('2027-01-01T00:00:00Z');
  const paid: Refundable = {
    status: 'paid',
    currency: 'EUR',
    total: 1000,
    totalUsd: 1085,
    refundedAmount: 0,
    paymentReference: 'pay_1',
  };

  it('keeps a partly refunded record paid, and refunds the rest in full', () => {
    const partial = nextRefund(paid, 'order', 400, 1.085, now);
    expect(partial).toEqual({
      paymentId: 'pay_1',
      amount: 400,
      fields: {
        status: 'paid',
        refundedAmount: 400,
        refundedAmountUsd: 434,
        refundedAt: null,
      },
    });
    // The amount left out is the whole remainder; USD then matches total_usd.
    const rest = nextRefund(
      { ...paid, refundedAmount: 400 },
      'invoice',
      undefined,
      1.085,
      now,
    );
    expect(rest).toEqual({
      paymentId: 'pay_1',
      amount: 600,
      fields: {
        status: 'refunded',
        refundedAmount: 1000,
        refundedAmountUsd: 1085,
        refundedAt: now,
      },
    });
    expect(nextRefund(paid, 'order', 1000, 1.085, now).fields.status).toBe(
      'refunded',
    );
  });

  it('refuses over-refunds, unpaid records and records that took no money with 422', () => {
    const over = thrownAppError(() =>
      nextRefund({ ...paid, refundedAmount: 1 }, 'order', 1000, 1, now),
    );
    expect(over.status).toBe(422);
    expect(over.errors[0]).toMatchObject({
      detail: 'The amount may be at most 999 cents, what is left to refund.',
      field: 'amount',
      code: 'refund_exceeds_balance',
    });
    for (const status of ['failed', 'refunded', 'pending', 'void']) {
      const error = thrownAppError(() =>
        nextRefund({ ...paid, status }, 'invoice', 1, 1, now),
      );
      expect(error.status).toBe(422);
      expect(error.errors[0].detail).toBe(
        `Only a paid invoice can be refunded; this one is ${status}.`,
      );
    }
    for (const free of [
      { ...paid, paymentReference: null },
      { ...paid, total: 0, totalUsd: 0 },
    ]) {
      expect(
        thrownAppError(() => nextRefund(free, 'order', undefined, 1, now))
          .errors[0].detail,
      ).toBe('This order has no payment to refund.');
    }
  });

  it('never gives back more than the total, in cents or in USD', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_147_483_647 }),
        fc.constantFrom('USD', 'EUR', 'JPY', 'KWD'),
        fc.integer({ min: 1, max: 50_000_000_000 }).map((u) => u / 1e10),
        fc.array(fc.option(fc.integer({ min: -10, max: 2_147_483_647 })), {
          maxLength: 8,
        }),
        (total, currency, rate, asks) => {
          let record: Refundable = {
            ...paid,
            currency,
            total,
            totalUsd: toUsdCents(total, currency, rate),
          };
          let given = 0;
          for (const ask of asks) {
            let refund;
            try {
              refund = nextRefund(record, 'order', ask ?? undefined, rate, now);
            } catch {
              continue;
            }
            given += refund.amount;
            const { fields } = refund;
            expect(refund.amount).toBeGreaterThan(0);
            expect(fields.refundedAmount).toBe(given);
            expect(given).toBeLessThanOrEqual(total);
            expect(fields.refundedAmountUsd).toBeLessThanOrEqual(
              record.totalUsd,
            );
            expect(fields.status === 'refunded').toBe(given === total);
            record = {
              ...record,
              status: fields.status,
              refundedAmount: fields.refundedAmount,
            };
          }
          return given <= total;
        },
      ),
      { numRuns: 1000 },
    );
  });
});
