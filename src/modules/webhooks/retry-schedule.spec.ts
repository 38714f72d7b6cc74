import { parseDurationList } from '../../common/durations';
import { DEFAULT_WEBHOOK_RETRY_DELAYS } from '../../config/environment';
import { retryDelayMs } from './retry-schedule';

describe('retry schedule', () => {
  it('parses units and repetitions', () => {
    expect(parseDurationList('200ms, 5s,2m,1h*2,3')).toEqual([
      200, 5000, 120_000, 3_600_000, 3_600_000, 3000,
    ]);
    expect(() => parseDurationList('5 parsecs')).toThrow(/duration/);
  });

  it('defaults to 5 s, 25 s, 125 s, then hourly, ending within 24 h of the first attempt', () => {
    const delays = parseDurationList(DEFAULT_WEBHOOK_RETRY_DELAYS);
    expect(delays.slice(0, 4)).toEqual([5000, 25_000, 125_000, 3_600_000]);
    const total = delays.reduce((sum, d) => sum + d, 0);
    expect(total).toBeLessThanOrEqual(24 * 3_600_000);
    expect(total + 3_600_000).toBeGreaterThan(24 * 3_600_000);
  });

  it('jitters each delay by at most 10 % and stops after the last', () => {
    const delays = [1000, 2000];
    expect(retryDelayMs(delays, 1, () => 0)).toBe(900);
    expect(retryDelayMs(delays, 1, () => 1)).toBe(1100);
    expect(retryDelayMs(delays, 2, () => 0.5)).toBe(2000);
    expect(retryDelayMs(delays, 3)).toBeNull();
  });
});
