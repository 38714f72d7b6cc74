import autocannon from 'autocannon';

/**
 * One autocannon run, in a process of its own so that the load generator's
 * CPU is not charged to the orchestrator or to the server. Started with
 * `fork`; receives a LoadSpec as its first message and answers a LoadResult.
 */

export interface LoadRequest {
  method: 'GET' | 'POST';
  /** Paths to rotate through, one per request. */
  paths: string[];
  headers?: Record<string, string>;
  /** Bodies to rotate through (JSON), paired with paths by index when both rotate. */
  bodies?: string[];
}

export interface LoadSpec {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Send exactly this many requests (and wait for every answer) instead of running for a duration. */
  amount?: number;
  request: LoadRequest;
  /** Fixed request rate (overall, per second); unset = as fast as possible. */
  overallRate?: number;
  /** Count 2xx responses per rotation slot (for exact-total checks). */
  countPerSlot?: boolean;
}

export interface LoadResult {
  requestsPerSecond: number;
  /** 2xx responses per second over the run. */
  okPerSecond: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  /** With countPerSlot: 2xx responses per rotation slot. */
  perSlot?: number[];
}

interface Context {
  slot?: number;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const { request } = spec;
  const slots = Math.max(request.paths.length, request.bodies?.length ?? 0);
  const perSlot = Array.from({ length: slots }, () => 0);
  const statusCounts: Record<string, number> = {};
  let next = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    // autocannon refuses an explicit `duration: undefined`; give one or the other.
    ...(spec.amount === undefined
      ? { duration: spec.durationSeconds }
      : { amount: spec.amount }),
    overallRate: spec.overallRate,
    timeout: 10,
    requests: [
      {
        method: request.method,
        headers: request.headers,
        setupRequest: (req: Record<string, unknown>, context: Context) => {
          const slot = next++ % slots;
          context.slot = slot;
          return {
            ...req,
            path: request.paths[slot % request.paths.length],
            body: request.bodies
              ? request.bodies[slot % request.bodies.length]
              : undefined,
          };
        },
        onResponse: (status: number, _body: string, context: Context) => {
          statusCounts[status] = (statusCounts[status] ?? 0) + 1;
          if (status >= 200 && status < 300 && context.slot !== undefined)
            perSlot[context.slot]++;
        },
      },
    ],
  });
  const ok = result['2xx'];
  return {
    requestsPerSecond: result.requests.average,
    okPerSecond: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts,
    perSlot: spec.countPerSlot ? perSlot : undefined,
  };
}

process.once('message', (spec: LoadSpec) => {
  run(spec).then(
    (result) => process.send!(result, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
});
