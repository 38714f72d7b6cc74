import fc from 'fast-check';
import { prorate, prorationMode } from './proration';

const start = new Date('2026-04-01T00:00:00Z');
const end = new Date('2026-05-01T00:00:00Z'); // 30 days

describe('prorate', () => {
  it('credits the unused old amount and charges the new one by seconds remaining', () => {
    const halfway = new Date('2026-04-16T00:00:00Z');
    const p = prorate({
      periodStart: start,
      periodEnd: end,
      now: halfway,
      oldAmount: 1000,
      newAmount: 3000,
    });
    expect(p).toEqual({
      secondsRemaining: 15 * 86400,
      secondsInPeriod: 30 * 86400,
      credit: 500,
      charge: 1500,
      net: 1000,
    });
  });

  it('gives a negative net for a downgrade and nothing at the period end', () => {
    const tenDaysLeft = new Date('2026-04-21T00:00:00Z');
    expect(
      prorate({
        periodStart: start,
        periodEnd: end,
        now: tenDaysLeft,
        oldAmount: 3000,
        newAmount: 1500,
      }).net,
    ).toBe(-500);
    expect(
      prorate({
        periodStart: start,
        periodEnd: end,
        now: end,
        oldAmount: 3000,
        newAmount: 9000,
      }).net,
    ).toBe(0);
  });

  it('clamps an instant outside the period', () => {
    const before = new Date('2026-03-01T00:00:00Z');
    const p = prorate({
      periodStart: start,
      periodEnd: end,
      now: before,
      oldAmount: 100,
      newAmount: 200,
    });
    expect(p.secondsRemaining).toBe(p.secondsInPeriod);
    expect(p.net).toBe(100);
  });

  it('never credits or charges more than a full period', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 * 86400 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (offset, oldAmount, newAmount) => {
          const now = new Date(start.getTime() + offset * 1000);
          const p = prorate({
            periodStart: start,
            periodEnd: end,
            now,
            oldAmount,
            newAmount,
          });
          return (
            p.credit >= 0 &&
            p.credit <= oldAmount &&
            p.charge >= 0 &&
            p.charge <= newAmount &&
            p.net === p.charge - p.credit &&
            (oldAmount !== newAmount || p.net === 0)
          );
        },
      ),
    );
  });
});

describe('prorationMode (spec 4.7 rules 2 and 3)', () => {
  it.each([
    [{}, 'next_renewal'],
    [{ invoiceImmediately: true }, 'invoice_now'],
    [{ disableProrations: true }, 'none'],
    [{ invoiceImmediately: true, disableProrations: true }, 'none'],
    [{ invoiceImmediately: false, disableProrations: false }, 'next_renewal'],
  ])('%p → %s', (flags, mode) => {
    expect(prorationMode(flags)).toBe(mode);
  });
});
