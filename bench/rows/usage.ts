import type { ChildProcess } from 'node:child_process';
import { auth, type Measured, load } from '../harness/measure';
import { DURATION, PORTS, QUICK } from '../harness/options';
import { addRow } from '../harness/table';
import type { BenchState } from '../state';

/** Where usage records go: an API, its key and the metered subscription items. */
export interface UsageTarget {
  port: number;
  process: ChildProcess;
  apiKey: string;
  itemIds: number[];
}

/** The most records one batch post takes (USAGE_BATCH_LIMIT). */
const BATCH = 1000;

const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);

function record(itemId: number, clientId?: string) {
  return {
    type: 'usage-records',
    ...(clientId === undefined ? {} : { id: clientId }),
    attributes: { quantity: 1, action: 'increment' },
    relationships: {
      'subscription-item': {
        data: { type: 'subscription-items', id: String(itemId) },
      },
    },
  };
}

/**
 * Each item's `current-usage` before and after `work`, which answers how
 * many increments it had acknowledged per item: `exact` when the server
 * applied exactly those.
 */
async function counted(
  target: UsageTarget,
  work: () => Promise<{ result: Measured; acknowledged: number[] }>,
) {
  const before = await usageTotals(target);
  const { result, acknowledged } = await work();
  const after = await usageTotals(target);
  const applied = target.itemIds.map((_, i) => after[i] - before[i]);
  const exact = applied.every((n, i) => n === acknowledged[i]);
  return {
    result,
    exact,
    note: exact
      ? `totals exact: ${sum(applied)} increments`
      : `TOTALS WRONG: ${sum(applied)} applied, ${sum(acknowledged)} acknowledged`,
  };
}

/**
 * One record per request, rotating over the items, `amount` requests on 50
 * connections: a fixed number, every answer awaited, since a run cut off by
 * a duration leaves increments the server applied but the client never counted.
 */
export function singleRecords(target: UsageTarget, amount: number) {
  return counted(target, async () => {
    const result = await load(
      {
        url: `http://127.0.0.1:${target.port}`,
        connections: 50,
        durationSeconds: DURATION,
        amount,
        countPerSlot: true,
        request: {
          method: 'POST',
          paths: ['/v1/usage-records'],
          headers: {
            ...auth(target.apiKey),
            'Content-Type': 'application/vnd.api+json',
          },
          bodies: target.itemIds.map((id) =>
            JSON.stringify({ data: record(id) }),
          ),
        },
      },
      target.process,
    );
    return { result, acknowledged: result.perSlot! };
  });
}

export async function usageRecords(state: BenchState, api: ChildProcess) {
  const ids = state.subscriptionItemIds;
  const { result, exact, note } = await singleRecords(
    {
      port: PORTS.api,
      process: api,
      apiKey: state.apiKey,
      itemIds: ids,
    },
    QUICK ? 2_000 : 20_000,
  );
  addRow({
    name: `POST /v1/usage-records (increment, ${ids.length} items, 50 conn.)`,
    zest: result,
    budget: '≥ 2,500/s, p99 ≤ 150 ms, totals exact',
    pass:
      result.okPerSecond >= 2500 &&
      result.p99 <= 150 &&
      exact &&
      result.non2xx === 0,
    note,
  });
}

/**
 * The batch extension: documents of 1,000 records (`data` an array), each
 * record with a client `id` of its own (the idempotent path a client that
 * retries takes), spread evenly over the items; every batch is sent once, 8
 * at a time. The req/s column shows records answered 2xx per second.
 */
export async function usageBatches(state: BenchState, api: ChildProcess) {
  const ids = state.subscriptionItemIds;
  const batches = QUICK ? 10 : 100;
  const run = `bench-${process.pid}-${Date.now()}`;
  // batch k, record j → item (k + j) mod n: each item's share of each batch is known.
  const itemOf = (k: number, j: number) => (k + j) % ids.length;
  const { result, exact, note } = await counted(
    { port: PORTS.api, process: api, apiKey: state.apiKey, itemIds: ids },
    async () => {
      const measured = await load(
        {
          url: `http://127.0.0.1:${PORTS.api}`,
          connections: 8,
          durationSeconds: DURATION,
          amount: batches,
          countPerSlot: true,
          request: {
            method: 'POST',
            paths: ['/v1/usage-records'],
            headers: {
              ...auth(state.apiKey),
              'Content-Type': 'application/vnd.api+json',
            },
            bodies: Array.from({ length: batches }, (_, k) =>
              JSON.stringify({
                data: Array.from({ length: BATCH }, (_, j) =>
                  record(ids[itemOf(k, j)], `${run}-${k}-${j}`),
                ),
              }),
            ),
          },
        },
        api,
      );
      const acknowledged = ids.map(() => 0);
      measured.perSlot!.forEach((ok, k) => {
        for (let j = 0; j < BATCH; j++) acknowledged[itemOf(k, j)] += ok;
      });
      return { result: measured, acknowledged };
    },
  );
  const recordsPerSecond = result.okPerSecond * BATCH;
  addRow({
    name: `POST /v1/usage-records, batches of ${BATCH} (increment, client ids, ${ids.length} items, 8 conn.)`,
    // Records answered 2xx over the run's whole duration: a run of a few
    // batches is too short for autocannon's per-second average.
    zest: {
      ...result,
      requestsPerSecond: recordsPerSecond,
      okPerSecond: recordsPerSecond,
    },
    budget: '≥ 10,000 records/s, totals exact',
    pass:
      recordsPerSecond >= 10_000 &&
      exact &&
      result.non2xx + result.errors + result.timeouts === 0,
    note: `records/s; ${result.ok} batches, p50/p99 per batch; ${note}`,
  });
}

/** Each item's `current-usage` quantity. */
async function usageTotals(target: UsageTarget) {
  return Promise.all(
    target.itemIds.map(async (id) => {
      const response = await fetch(
        `http://127.0.0.1:${target.port}/v1/subscription-items/${id}/current-usage`,
        { headers: auth(target.apiKey) },
      );
      const body = (await response.json()) as { meta: { quantity: number } };
      return body.meta.quantity;
    }),
  );
}
