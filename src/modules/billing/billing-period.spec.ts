import { nextAnchorDate, periodEnd, trialEnd } from './billing-period';

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('periodEnd', () => {
  it('adds exact days and weeks', () => {
    const start = at('2026-03-28T10:00:00.000Z');
    expect(iso(periodEnd(start, { unit: 'day', quantity: 5 }, 28))).toBe(
      '2026-04-02T10:00:00.000Z',
    );
    expect(iso(periodEnd(start, { unit: 'week', quantity: 2 }, 28))).toBe(
      '2026-04-11T10:00:00.000Z',
    );
  });

  it('clamps monthly periods to short months and returns to the anchor', () => {
    const month = { unit: 'month', quantity: 1 } as const;
    const jan = at('2026-01-31T09:30:15.123Z');
    const feb = periodEnd(jan, month, 31);
    expect(iso(feb)).toBe('2026-02-28T09:30:15.123Z');
    const mar = periodEnd(feb, month, 31);
    expect(iso(mar)).toBe('2026-03-31T09:30:15.123Z');
    expect(iso(periodEnd(mar, month, 31))).toBe('2026-04-30T09:30:15.123Z');
  });

  it('handles leap years, quarters and year boundaries', () => {
    expect(
      iso(
        periodEnd(
          at('2027-11-29T00:00:00Z'),
          { unit: 'month', quantity: 3 },
          29,
        ),
      ),
    ).toBe('2028-02-29T00:00:00.000Z');
    expect(
      iso(
        periodEnd(
          at('2028-02-29T00:00:00Z'),
          { unit: 'year', quantity: 1 },
          29,
        ),
      ),
    ).toBe('2029-02-28T00:00:00.000Z');
    expect(
      iso(
        periodEnd(
          at('2026-12-15T00:00:00Z'),
          { unit: 'month', quantity: 1 },
          15,
        ),
      ),
    ).toBe('2027-01-15T00:00:00.000Z');
  });

  it('runs trials for their exact length', () => {
    expect(
      iso(trialEnd(at('2026-01-31T12:00:00Z'), { unit: 'day', quantity: 14 })),
    ).toBe('2026-02-14T12:00:00.000Z');
    expect(
      iso(trialEnd(at('2026-01-31T12:00:00Z'), { unit: 'month', quantity: 1 })),
    ).toBe('2026-02-28T12:00:00.000Z');
  });
});

describe('nextAnchorDate', () => {
  it('finds the next occurrence of the day, clamped to the month', () => {
    const now = at('2026-02-10T08:00:00Z');
    expect(iso(nextAnchorDate(now, 20))).toBe('2026-02-20T08:00:00.000Z');
    expect(iso(nextAnchorDate(now, 5))).toBe('2026-03-05T08:00:00.000Z');
    expect(iso(nextAnchorDate(now, 31))).toBe('2026-02-28T08:00:00.000Z');
    expect(iso(nextAnchorDate(now, 10))).toBe('2026-03-10T08:00:00.000Z');
    expect(iso(nextAnchorDate(at('2026-12-31T00:00:00Z'), 1))).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });
});
