import { jest } from '@jest/globals';
import { MemoryRateLimitStore } from './rate-limit.store';

describe('MemoryRateLimitStore', () => {
  beforeEach(() =>
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }),
  );
  afterEach(() => jest.useRealTimers());

  it('counts within a window that opens on the first hit and starts over when it closes', async () => {
    const store = new MemoryRateLimitStore();
    expect(await store.hit('a', 60_000)).toEqual({
      count: 1,
      resetInMs: 60_000,
    });
    jest.advanceTimersByTime(59_000);
    expect(await store.hit('a', 60_000)).toEqual({
      count: 2,
      resetInMs: 1_000,
    });
    expect(await store.hit('b', 60_000)).toEqual({
      count: 1,
      resetInMs: 60_000,
    });
    jest.advanceTimersByTime(1_000);
    expect(await store.hit('a', 60_000)).toEqual({
      count: 1,
      resetInMs: 60_000,
    });
  });
});
