import { repeatEvery } from './repeat-every';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('repeatEvery', () => {
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

    await sleep(110);
    task.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(errors).toEqual([new Error('second run fails')]);

    const stoppedAt = runs;
    await sleep(60);
    expect(runs).toBe(stoppedAt);
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
