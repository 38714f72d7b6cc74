import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from '../load';
import type { BenchState } from '../state';
import { DIST_BENCH, DURATION, PORTS, ROUNDS } from './options';
import {
  cpuTicks,
  log,
  memory,
  message,
  processCpuMs,
  start,
  stealSince,
} from './processes';
import { addRow } from './table';

export interface Measured extends LoadResult {
  peakRssMiB: number;
  /** Share of the machine's CPU time the hypervisor gave to others during the run. */
  stealPercent: number;
  /** The sampled server's CPU time (user + system) per 2xx answer, in ms (load runs). */
  cpuMsPerOk?: number;
}

/** One autocannon run in a forked process, `server`'s RSS sampled meanwhile. */
export async function load(
  spec: LoadSpec,
  server: ChildProcess,
): Promise<Measured> {
  const child = start(
    'load',
    join(DIST_BENCH, 'load.js'),
    { PATH: process.env.PATH ?? '' },
    true,
  );
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memory(server.pid).rss);
  }, 100);
  const ticks = cpuTicks();
  const cpuBefore = processCpuMs(server.pid);
  try {
    const answer = message<LoadResult>(child);
    child.send(spec);
    const result = await answer;
    return {
      ...result,
      peakRssMiB: Math.max(peak, memory(server.pid).rss),
      stealPercent: stealSince(ticks),
      cpuMsPerOk: (processCpuMs(server.pid) - cpuBefore) / result.ok,
    };
  } finally {
    clearInterval(sampler);
  }
}

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function medianOf(results: Measured[]): Measured {
  const pick = (key: keyof Measured) =>
    median(results.map((r) => r[key] as number));
  return {
    ...results[0],
    requestsPerSecond: pick('requestsPerSecond'),
    okPerSecond: pick('okPerSecond'),
    p50: pick('p50'),
    p99: pick('p99'),
    ok: pick('ok'),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    peakRssMiB: Math.max(...results.map((r) => r.peakRssMiB)),
    stealPercent: pick('stealPercent'),
    cpuMsPerOk: pick('cpuMsPerOk'),
  };
}

/** Whether a run answered and every answer was a 2xx. */
export const clean = (run: Measured) =>
  run.ok > 0 && run.errors + run.timeouts + run.non2xx === 0;

export const auth = (key: string) => ({
  Authorization: `Bearer ${key}`,
  Accept: 'application/vnd.api+json',
});

export function getSpec(
  port: number,
  paths: string[],
  key: string,
  connections = 32,
): LoadSpec {
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    durationSeconds: DURATION,
    request: { method: 'GET', paths, headers: auth(key) },
  };
}

/** One side of an A/B comparison: what to send and the server to sample. */
export interface Side {
  spec: LoadSpec;
  process: ChildProcess;
}

/**
 * A B A B …: an unrecorded warm-up of each side (a fifth of a run, so no
 * round pays for the JIT compiling the route's code; an extra API process
 * starts cold), then the medians of ROUNDS runs each, the two alternating.
 */
export async function alternate(
  a: Side,
  b: Side,
): Promise<{ a: Measured; b: Measured }> {
  const warmUp = (spec: LoadSpec): LoadSpec => ({
    ...spec,
    amount: undefined,
    durationSeconds: Math.max(1, Math.round(DURATION / 5)),
  });
  await load(warmUp(a.spec), a.process);
  await load(warmUp(b.spec), b.process);
  const as: Measured[] = [];
  const bs: Measured[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    as.push(await load(a.spec, a.process));
    bs.push(await load(b.spec, b.process));
  }
  return { a: medianOf(as), b: medianOf(bs) };
}

/**
 * Zest and the bare baseline, A B A B …; with `minRatio` the row is
 * budgeted, and `also` adds a check on Zest's figures to that budget.
 */
export async function sideBySide(
  name: string,
  paths: string[],
  state: BenchState,
  api: { port: number; process: ChildProcess },
  baseline: ChildProcess,
  minRatio?: number,
  also?: { budget: string; pass: (zest: Measured) => boolean },
) {
  const { a: z, b } = await alternate(
    { spec: getSpec(api.port, paths, state.apiKey), process: api.process },
    { spec: getSpec(PORTS.baseline, paths, state.apiKey), process: baseline },
  );
  const ratio = z.requestsPerSecond / b.requestsPerSecond;
  addRow({
    name,
    zest: z,
    baseline: b,
    ...(minRatio === undefined
      ? {}
      : {
          budget:
            `≥ ${minRatio.toFixed(2)}× baseline` +
            (also ? `, ${also.budget}` : ''),
          pass:
            ratio >= minRatio &&
            z.errors + z.non2xx === 0 &&
            (also?.pass(z) ?? true),
        }),
  });
  return z;
}

/** Byte-for-byte the same bodies from Zest and the baseline, links' host aside. */
export async function compareOutputs(state: BenchState, paths: string[]) {
  for (const path of paths) {
    const fetchBody = async (port: number) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: auth(state.apiKey),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`${path} on ${port}: ${response.status} ${text}`);
      // Links differ only in the host (each server's own PUBLIC_BASE_URL).
      return text.replace(/http:\/\/127\.0\.0\.1:\d+\//g, 'http://HOST/');
    };
    const [zest, bare] = await Promise.all([
      fetchBody(PORTS.api),
      fetchBody(PORTS.baseline),
    ]);
    if (zest !== bare) {
      let at = 0;
      while (zest[at] === bare[at]) at++;
      throw new Error(
        `baseline output differs for ${path} at ${at}:\n zest: …${zest.slice(at - 60, at + 60)}\n bare: …${bare.slice(at - 60, at + 60)}`,
      );
    }
  }
  log(`baseline output identical to Zest's for ${paths.length} requests`);
}
