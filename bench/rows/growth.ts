import type { ChildProcess } from 'node:child_process';
import { clean, getSpec, load, type Measured } from '../harness/measure';
import { PORTS } from '../harness/options';
import { addRow } from '../harness/table';
import type { BenchState } from '../state';
import { deepCursorPath, ordersPage } from './reads';

export interface Growth {
  size: number;
  list: Measured;
  allStores: Measured;
  /** `page[number]` at half the store's list, and `page[after]` at the same depth. */
  deepPage: number;
  deep: Measured;
  cursor: Measured;
  single: Measured;
}

/** The growth rows' runs at the store's current size (`size` orders). */
export async function growth(
  size: number,
  state: BenchState,
  api: ChildProcess,
): Promise<Growth> {
  const list = await load(
    getSpec(
      PORTS.api,
      [`/v1/orders?filter%5Bstore_id%5D=${state.storeId}&page%5Bsize%5D=10`],
      state.apiKey,
    ),
    api,
  );
  // What the SDK's listOrders() asks by default: every store of the key's user.
  const allStores = await load(
    getSpec(PORTS.api, ['/v1/orders?page%5Bsize%5D=10'], state.apiKey),
    api,
  );
  const deepPage = Math.max(1, Math.floor(size / 10 / 2));
  const deep = await load(
    getSpec(PORTS.api, [ordersPage(state, deepPage)], state.apiKey),
    api,
  );
  const cursorPath = await deepCursorPath(
    state,
    ordersPage(state, Math.max(1, deepPage - 1)),
  );
  const cursor = await load(
    getSpec(PORTS.api, [cursorPath], state.apiKey),
    api,
  );
  const single = await load(
    getSpec(
      PORTS.api,
      state.orderIds.map((id) => `/v1/orders/${id}`),
      state.apiKey,
    ),
    api,
  );
  return { size, list, allStores, deepPage, deep, cursor, single };
}

/**
 * The growth rows. Lists at the last of three or more sizes: p50 within 3×
 * of the smallest size's; the deep page and the cursor at every size: p50
 * within 3× of page 1's at that size.
 */
export function addGrowthRows(growthRows: Growth[], reused: boolean) {
  for (const g of growthRows) {
    const at = `growth @ ${g.size.toLocaleString('en-US')} orders`;
    const isLast =
      g === growthRows[growthRows.length - 1] &&
      growthRows.length > 2 &&
      !reused;
    const lists = [
      ['orders list page 1 (store filter)', 'list'],
      ['orders list page 1 (all stores)', 'allStores'],
    ] as const;
    for (const [label, key] of lists) {
      const run = g[key];
      const first = growthRows[0][key].p50;
      addRow({
        name: `${at}: ${label}`,
        zest: run,
        budget: isLast ? 'p50 ≤ 3× p50 at the smallest size' : undefined,
        pass: isLast
          ? run.p50 <= 3 * Math.max(first, 1) && clean(run)
          : undefined,
      });
    }
    const deepRows = [
      [`orders list page ${g.deepPage} (store filter)`, g.deep],
      [
        `orders list page[after] at page ${g.deepPage} (store filter)`,
        g.cursor,
      ],
    ] as const;
    for (const [label, run] of deepRows) {
      addRow({
        name: `${at}: ${label}`,
        zest: run,
        budget: 'p50 ≤ 3× p50 of page 1',
        pass: run.p50 <= 3 * Math.max(g.list.p50, 1) && clean(run),
      });
    }
    addRow({ name: `${at}: GET /v1/orders/:id`, zest: g.single });
  }
}
