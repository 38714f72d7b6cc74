import { PagePositions } from './page-positions';

describe('PagePositions', () => {
  it('finds the nearest position at or before an offset, at its version', () => {
    const positions = new PagePositions();
    positions.learn('list', 7, 1_000, [11, 12, 13]);
    expect(positions.nearest('list', 999)).toBeUndefined();
    expect(positions.nearest('list', 1_000)).toEqual({
      position: 1_000,
      id: 11,
      version: 7,
    });
    // The page's last record serves the next page.
    expect(positions.nearest('list', 1_003)).toEqual({
      position: 1_002,
      id: 13,
      version: 7,
    });
    expect(positions.nearest('other', 1_003)).toBeUndefined();
  });

  it('drops older versions for a newer one and ignores an older one', () => {
    const positions = new PagePositions();
    positions.learn('list', 7, 1_000, [11]);
    positions.learn('list', 8, 2_000, [21]);
    expect(positions.nearest('list', 1_500)).toBeUndefined();
    positions.learn('list', 7, 1_000, [11]);
    expect(positions.nearest('list', 1_500)).toBeUndefined();
    expect(positions.nearest('list', 2_000)?.version).toBe(8);
    positions.forget('list');
    expect(positions.nearest('list', 2_000)).toBeUndefined();
  });

  it('keeps the positions and the lists used last', () => {
    const positions = new PagePositions(2, 4);
    for (let page = 0; page < 4; page++)
      positions.learn('a', 1, 1_000 + page * 10, [page * 10, page * 10 + 9]);
    // Eight positions learnt, the last four kept.
    expect(positions.nearest('a', 1_015)).toBeUndefined();
    expect(positions.nearest('a', 1_020)?.id).toBe(20);
    positions.learn('b', 1, 1_000, [1]);
    positions.nearest('a', 1_020);
    positions.learn('c', 1, 1_000, [1]);
    expect(positions.nearest('b', 1_000)).toBeUndefined();
    expect(positions.nearest('a', 1_020)?.id).toBe(20);
    expect(positions.nearest('c', 1_000)?.id).toBe(1);
  });
});
