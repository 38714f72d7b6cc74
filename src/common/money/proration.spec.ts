import fc from 'fast-check';
import { forSeconds, prorate } from './proration';

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

  it('charges a full period’s amount for a full period', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 * 86400 }),
        fc.integer({ min: 0, max: 2_147_483_647 }),
        fc.integer({ min: 0, max: 2_147_483_647 }),
        (length, oldAmount, newAmount) => {
          const periodEnd = new Date(start.getTime() + length * 1000);
          const p = prorate({
            periodStart: start,
            periodEnd,
            now: start,
            oldAmount,
            newAmount,
          });
          return (
            p.credit === oldAmount &&
            p.charge === newAmount &&
            forSeconds(newAmount, length, length) === newAmount
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('forSeconds', () => {
  it('scales an amount by seconds, a longer span being more and a negative one a credit', () => {
    expect(forSeconds(3000, 10 * 86400, 30 * 86400)).toBe(1000);
    expect(forSeconds(3000, 45 * 86400, 30 * 86400)).toBe(4500);
    expect(forSeconds(3000, -15 * 86400, 30 * 86400)).toBe(-1500);
    expect(forSeconds(1000, 1, 3)).toBe(333);
    expect(forSeconds(1000, -1, 3)).toBe(-333);
    expect(forSeconds(1000, 5, 0)).toBe(0);
  });
});
