import type { ChildProcess } from 'node:child_process';
import { auth, clean, getSpec, load, sideBySide } from '../harness/measure';
import { PORTS, SIZES, UNPREPARED_ENV } from '../harness/options';
import { startExtraApi, stop } from '../harness/processes';
import { addRow } from '../harness/table';
import type { BenchState } from '../state';

/** Page `page` (of 10) of the store's orders list. */
export const ordersPage = (state: BenchState, page: number) =>
  `/v1/orders?filter%5Bstore_id%5D=${state.storeId}&page%5Bsize%5D=10&page%5Bnumber%5D=${page}`;

/** The side-by-side rows (Zest and the baseline) and the include row. */
export async function reads(
  state: BenchState,
  api: ChildProcess,
  baseline: ChildProcess,
  productPaths: string[],
  ordersPage: (page: number) => string,
) {
  const deepPage = Math.floor(SIZES.main / 10 / 2);
  const unprepared = await startExtraApi(
    'api (unprepared statements)',
    PORTS.unprepared,
    UNPREPARED_ENV,
  );
  const zest = { port: PORTS.unprepared, process: unprepared };
  await sideBySide(
    'GET /v1/products/:id (both unprepared)',
    productPaths,
    state,
    zest,
    baseline,
    0.6,
  );
  // Zest as it ships: its hot reads prepared. Not budgeted: the baseline
  // still sends every statement unprepared.
  await sideBySide(
    'GET /v1/products/:id, Zest default (prepared) vs baseline (unprepared)',
    productPaths,
    state,
    { port: PORTS.api, process: api },
    baseline,
  );
  const firstPage = await sideBySide(
    `GET /v1/orders (store filter, page 1 of ${SIZES.main / 10}; both unprepared)`,
    [ordersPage(1)],
    state,
    zest,
    baseline,
    0.7,
  );
  const withinThreeOfFirst = {
    budget: 'p50 ≤ 3× p50 of page 1',
    pass: (run: { p50: number }) => run.p50 <= 3 * Math.max(firstPage.p50, 1),
  };
  // The deferred join: the page's ids from an index-only scan, then 10 rows.
  await sideBySide(
    `GET /v1/orders (store filter, page ${deepPage}; both unprepared)`,
    [ordersPage(deepPage)],
    state,
    zest,
    baseline,
    5,
    withinThreeOfFirst,
  );
  // The cursor extension at the same depth: a keyset seek, whatever the depth.
  const cursorPath = await deepCursorPath(state, ordersPage(deepPage - 1));
  const cursorRow = await load(
    getSpec(zest.port, [cursorPath], state.apiKey),
    unprepared,
  );
  addRow({
    name: `GET /v1/orders (store filter, page[after] at page ${deepPage}; unprepared)`,
    zest: cursorRow,
    budget: withinThreeOfFirst.budget,
    pass: withinThreeOfFirst.pass(cursorRow) && clean(cursorRow),
  });
  await sideBySide(
    'GET /v1/products?include=variants (page of 10; both unprepared)',
    ['/v1/products?include=variants'],
    state,
    zest,
    baseline,
    0.7,
  );
  await stop(unprepared);
}

/**
 * The cursor page that follows numbered page `previous`: the `page[after]`
 * of its last order, as a client walking the list would hold it.
 */
export async function deepCursorPath(
  state: BenchState,
  previous: string,
): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${PORTS.api}${previous}`, {
    headers: auth(state.apiKey),
  });
  const page = (await response.json()) as { data: { id: string }[] };
  const last = page.data.at(-1);
  if (!last) throw new Error(`${previous}: no orders`);
  const cursor = Buffer.from(JSON.stringify({ id: Number(last.id) })).toString(
    'base64url',
  );
  const url = new URL(previous, 'http://host');
  url.searchParams.delete('page[number]');
  url.searchParams.set('page[after]', cursor);
  return `${url.pathname}${url.search}`;
}

export async function realLimiter(state: BenchState, productPaths: string[]) {
  // The real limiter: a second API process with the default 300 requests a minute.
  const limited = await startExtraApi(
    'api (default limits)',
    PORTS.limited,
    {},
  );
  const limitedRun = await load(
    getSpec(PORTS.limited, productPaths, state.limitedApiKey),
    limited,
  );
  await stop(limited);
  addRow({
    name: 'GET /v1/products/:id, real limiter (300/min)',
    zest: limitedRun,
    budget: '300 × 2xx in the window, rest 429',
    pass:
      limitedRun.ok === Math.min(300, limitedRun.ok + limitedRun.non2xx) &&
      limitedRun.errors + limitedRun.timeouts === 0 &&
      (limitedRun.statusCounts['429'] ?? 0) === limitedRun.non2xx,
    note: `${limitedRun.statusCounts['429'] ?? 0} × 429`,
  });
}
