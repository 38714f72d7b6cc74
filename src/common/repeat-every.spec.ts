import { jest } from '@jest/globals';
import { repeatEvery } from './repeat-every';

describe('repeatEvery', () => {
  // Fake timers: the ticks are counted, not raced against a busy machine.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs at once, then on every tick, and a failed run does not stop it', async () => {
    let runs = 0;
    const errors: unknown[] = [];
    const task = repeatEvery(
      20,
      async () => {
        runs += 1;
        if (runs === 2) throw new Error('second run fails');
      },
      (error) => errors.push(error),
    );
    await task.first;
    expect(runs).toBe(1);

    await jest.advanceTimersByTimeAsync(110);
    task.stop();
    expect(runs).toBe(6);
    expect(errors).toEqual([new Error('second run fails')]);

    await jest.advanceTimersByTimeAsync(60);
    expect(runs).toBe(6);
  });

  it('settles `first` even when the first run fails', async () => {
    const errors: unknown[] = [];
    const task = repeatEvery(
      60_000,
      () => Promise.reject(new Error('down')),
      (error) => errors.push(error),
    );
    await expect(task.first).resolves.toBeUndefined();
    task.stop();
    expect(errors).toHaveLength(1);
  });
});
