import { args, PORTS, QUICK, UNLIMITED_ENV } from '../harness/options';
import {
  cpuTicks,
  memory,
  startExtraApi,
  stealSince,
  stop,
} from '../harness/processes';
import { addRow } from '../harness/table';
import type { BenchState } from '../state';
import { fileRows } from './file-transfers';

/** The file rows (file-transfers.ts), on an API process of their own per backend. */
export async function files(state: BenchState) {
  const ticks = cpuTicks();
  const results = await fileRows({
    size: Math.round(
      Number(args['file-gib'] ?? (QUICK ? 0.25 : 2)) * 1024 ** 3,
    ),
    port: PORTS.files,
    apiKey: state.apiKey,
    productId: state.productIds[0],
    // Unlimited, as the main API: earlier groups' requests with the same
    // key share the limiter's window.
    startApi: (env) =>
      startExtraApi('api (files)', PORTS.files, { ...UNLIMITED_ENV, ...env }),
    stopApi: stop,
    rssMiB: (pid) => memory(pid).rss,
  });
  const f = (n: number) => (Number.isNaN(n) ? '?' : n.toFixed(0));
  for (const r of results)
    addRow({
      name: r.name,
      zest: {
        requestsPerSecond: 2000 / Math.max(1, r.uploadMs + r.downloadMs),
        okPerSecond: r.pass ? 2000 / Math.max(1, r.uploadMs + r.downloadMs) : 0,
        p50: r.uploadMs,
        p99: r.downloadMs,
        ok: r.pass ? 2 : 0,
        non2xx: 0,
        errors: r.failures.length,
        timeouts: 0,
        statusCounts: {},
        peakRssMiB: r.peakRssMiB,
        stealPercent: stealSince(ticks),
      },
      budget:
        'API RSS grows < 64 MiB (upload, download); checksum equal; Range resume 206 at the offset',
      pass: r.pass,
      note:
        `p50 = upload ms, p99 = download ms; RSS +${f(r.uploadGrowthMiB)} MiB uploading, +${f(r.downloadGrowthMiB)} MiB downloading; ` +
        `checksums ${r.checksumsMatch ? 'match' : 'DIFFER'}; Range resume ${r.rangeResumed ? 'correct' : 'WRONG'}` +
        (r.failures.length ? `; ${r.failures.join('; ')}` : ''),
    });
}
