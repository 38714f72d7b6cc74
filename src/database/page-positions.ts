/**
 * A record known to stand at `position` (0-based) of a list while the
 * list's version was `version`.
 */
export interface PagePosition {
  position: number;
  id: number;
  version: number;
}

interface KnownList {
  version: number;
  /** Record id by position, oldest first (a Map keeps insertion order). */
  ids: Map<number, number>;
}

/**
 * Where records stood in a list, remembered so that a numbered page deep in
 * the list is a keyset seek from the nearest record before it instead of an
 * OFFSET that counts off every entry in front (see `SqlScope.page`'s
 * `from`). A client walking a list with `page[number]` (as every official
 * SDK does) finds the next page at the last record of the one before; a
 * page asked for again finds its own first record.
 *
 * A position is only as good as its list's `version`: a number that grows
 * with every record added to the list and changes whenever a record could
 * move, such as the store's kept order count for an insert-only table
 * sorted by columns that never change. The caller reads the version before
 * the page it learns positions from; the seek re-checks it in its own
 * statement, so a list that changed in between reads nothing from the seek
 * and is paged by offset again (`forget`).
 *
 * Kept per process, bounded: the lists used last stay, each with its
 * positions learnt last.
 */
export class PagePositions {
  private readonly lists = new Map<string, KnownList>();

  constructor(
    private readonly maxLists = 2_000,
    private readonly perList = 32,
  ) {}

  /** The known record nearest before (or at) `offset` in `list`. */
  nearest(list: string, offset: number): PagePosition | undefined {
    const known = this.lists.get(list);
    if (!known) return undefined;
    // Used last: to the end of the eviction order.
    this.lists.delete(list);
    this.lists.set(list, known);
    let best: PagePosition | undefined;
    for (const [position, id] of known.ids)
      if (position <= offset && (!best || position > best.position))
        best = { position, id, version: known.version };
    return best;
  }

  /** Records `ids` as standing at `first`, `first + 1`, … at `version`. */
  learn(list: string, version: number, first: number, ids: number[]): void {
    if (ids.length === 0) return;
    let known = this.lists.get(list);
    if (!known || known.version !== version) {
      // A newer version makes every older position suspect; an older one
      // (a slow reader) is not worth keeping over the newer.
      if (known && known.version > version) return;
      known = { version, ids: new Map() };
    }
    this.lists.delete(list);
    this.lists.set(list, known);
    // The page's first record serves the same page again, its last the next.
    const learnt: [number, number][] = [[first, ids[0]]];
    if (ids.length > 1)
      learnt.push([first + ids.length - 1, ids[ids.length - 1]]);
    for (const [position, id] of learnt) {
      known.ids.delete(position);
      known.ids.set(position, id);
    }
    while (known.ids.size > this.perList)
      known.ids.delete(known.ids.keys().next().value as number);
    while (this.lists.size > this.maxLists)
      this.lists.delete(this.lists.keys().next().value as string);
  }

  /** Drops what is known of `list` (it changed). */
  forget(list: string): void {
    this.lists.delete(list);
  }
}
