import fc from 'fast-check';
import {
  applyUsage,
  billableUsage,
  NO_USAGE,
  PeriodUsage,
} from './usage-aggregation';

const fold = (records: ['increment' | 'set', number][]) =>
  records.reduce<PeriodUsage>((u, [a, q]) => applyUsage(u, a, q), NO_USAGE);

describe('usage aggregation', () => {
  const period = fold([
    ['increment', 5],
    ['increment', 7],
    ['set', 30],
    ['increment', 2],
    ['set', 10],
  ]);

  it('folds increments and sets into a running total and a peak', () => {
    expect(period).toEqual({ total: 10, peak: 32 });
  });

  it('reads each aggregation', () => {
    expect(billableUsage('sum', period, null)).toBe(10);
    expect(billableUsage('last_during_period', period, null)).toBe(10);
    expect(billableUsage('max', period, null)).toBe(32);
    expect(billableUsage('last_ever', period, 99)).toBe(10);
  });

  it('carries the last value into an empty period only for last_ever', () => {
    expect(billableUsage('last_ever', null, 42)).toBe(42);
    expect(billableUsage('last_ever', null, null)).toBe(0);
    expect(billableUsage('sum', null, 42)).toBe(0);
    expect(billableUsage('max', null, 42)).toBe(0);
    expect(billableUsage('last_during_period', null, 42)).toBe(0);
  });

  it('sums increments exactly in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1000 })), (quantities) => {
        const usage = fold(quantities.map((q) => ['increment', q]));
        const sum = quantities.reduce((a, b) => a + b, 0);
        return usage.total === sum && usage.peak === sum;
      }),
    );
  });
});
