import { jest } from '@jest/globals';
import { throttle } from './throttle';

describe('throttle', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('runs the first call at once and folds the calls of the next interval into one run at its end', () => {
    const runs: number[] = [];
    const throttled = throttle(20, () => runs.push(Date.now()));
    throttled.call();
    expect(runs).toEqual([1_000_000]);
    jest.advanceTimersByTime(5);
    throttled.call();
    jest.advanceTimersByTime(10);
    throttled.call();
    expect(runs).toHaveLength(1);
    jest.advanceTimersByTime(5);
    expect(runs).toEqual([1_000_000, 1_000_020]);
    jest.advanceTimersByTime(100);
    expect(runs).toHaveLength(2);
  });

  it('runs at once again after a quiet interval', () => {
    let runs = 0;
    const throttled = throttle(20, () => runs++);
    throttled.call();
    jest.advanceTimersByTime(25);
    throttled.call();
    expect(runs).toBe(2);
  });

  it('drops a waiting run on cancel', () => {
    let runs = 0;
    const throttled = throttle(20, () => runs++);
    throttled.call();
    throttled.call();
    throttled.cancel();
    jest.advanceTimersByTime(100);
    expect(runs).toBe(1);
  });
});
