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

  it('adds weighted counts in the same window and peeks without counting', async () => {
    const store = new MemoryRateLimitStore();
    expect(await store.peek('c')).toBeNull();
    expect(await store.add('c', 10_000, 5)).toEqual({
      count: 5,
      resetInMs: 10_000,
    });
    jest.advanceTimersByTime(4_000);
    expect(await store.hit('c', 10_000)).toEqual({
      count: 6,
      resetInMs: 6_000,
    });
    expect(await store.peek('c')).toEqual({ count: 6, resetInMs: 6_000 });
    expect(await store.peek('c')).toEqual({ count: 6, resetInMs: 6_000 });
    jest.advanceTimersByTime(6_000);
    expect(await store.peek('c')).toBeNull();
  });
});
