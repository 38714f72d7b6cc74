import { formatTimestamp, parseTimestamp } from './timestamps';

describe('formatTimestamp', () => {
  it('writes microseconds, as the reference API does', () => {
    expect(formatTimestamp(new Date('2026-11-22T01:02:03.456Z'))).toBe(
      '2026-11-22T01:02:03.456000Z',
    );
    expect(formatTimestamp(new Date('2026-01-01T00:00:00Z'))).toBe(
      '2026-01-01T00:00:00.000000Z',
    );
  });

  it('keeps null as null', () => {
    expect(formatTimestamp(null)).toBeNull();
    expect(formatTimestamp(undefined)).toBeNull();
  });

  it('round-trips through parseTimestamp', () => {
    const date = new Date('2026-11-22T01:02:03.456Z');
    expect(parseTimestamp(formatTimestamp(date))).toEqual(date);
  });
});
