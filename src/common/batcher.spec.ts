import { Batcher } from './batcher';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('answers each caller with its own output and batches calls made meanwhile', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = new Batcher<number, number>(async (inputs) => {
      batches.push(inputs);
      if (batches.length === 1)
        await new Promise<void>((resolve) => (release = resolve));
      return inputs.map((n) => n * 10);
    });

    const first = [batcher.call(1), batcher.call(2)];
    await tick();
    // The first batch runs; these wait for it and then go together.
    const second = [batcher.call(3), batcher.call(4), batcher.call(5)];
    await tick();
    expect(batches).toEqual([[1, 2]]);
    release();

    expect(await Promise.all([...first, ...second])).toEqual([
      10, 20, 30, 40, 50,
    ]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('caps a batch at its maximum size', async () => {
    const sizes: number[] = [];
    const batcher = new Batcher<number, number>((inputs) => {
      sizes.push(inputs.length);
      return Promise.resolve(inputs);
    }, 4);
    const outputs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => batcher.call(i)),
    );
    expect(outputs).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('fails every call of a failed batch, and runs the next batch anyway', async () => {
    let calls = 0;
    const batcher = new Batcher<number, number>((inputs) => {
      calls += 1;
      return calls === 1
        ? Promise.reject(new Error('statement failed'))
        : Promise.resolve(inputs);
    }, 2);
    const results = await Promise.allSettled([
      batcher.call(1),
      batcher.call(2),
      batcher.call(3),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(await batcher.call(4)).toBe(4);
  });

  it('runs each call of a batch alone again when its error is isolated, so only the culprit fails', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(
      (inputs) => {
        batches.push(inputs);
        return inputs.includes(13)
          ? Promise.reject(new Error('13 refused'))
          : Promise.resolve(inputs.map((n) => n * 2));
      },
      10,
      (error) => error instanceof Error && error.message === '13 refused',
    );
    const results = await Promise.allSettled([
      batcher.call(1),
      batcher.call(13),
      batcher.call(3),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('13 refused') },
      { status: 'fulfilled', value: 6 },
    ]);
    expect(batches).toEqual([[1, 13, 3], [1], [13], [3]]);
  });

  it('fails every call of a batch whose error is not isolated', async () => {
    let runs = 0;
    const batcher = new Batcher<number, number>(
      () => {
        runs += 1;
        return Promise.reject(new Error('connection lost'));
      },
      10,
      (error) => error instanceof Error && error.message === '13 refused',
    );
    const results = await Promise.allSettled([
      batcher.call(1),
      batcher.call(2),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'rejected',
      'rejected',
    ]);
    expect(runs).toBe(1);
  });
});
