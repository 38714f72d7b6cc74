import { cpus, totalmem } from 'node:os';
import { DURATION, QUICK, ROUNDS } from './options';
import type { Measured } from './measure';
import { log } from './processes';

export interface Row {
  name: string;
  zest: Measured;
  baseline?: Measured;
  budget?: string;
  pass?: boolean;
  note?: string;
}

const rows: Row[] = [];

export function addRow(row: Row) {
  rows.push(row);
  const z = row.zest;
  log(
    `${row.name}: ${z.requestsPerSecond.toFixed(0)} req/s p50 ${z.p50} p99 ${z.p99}` +
      (row.baseline
        ? ` | baseline ${row.baseline.requestsPerSecond.toFixed(0)} req/s`
        : '') +
      (row.budget ? ` | ${row.budget}: ${row.pass ? 'PASS' : 'FAIL'}` : '') +
      (row.note ? ` | ${row.note}` : '') +
      ` | steal ${z.stealPercent.toFixed(0)} %`,
  );
}

/**
 * The results table (Markdown). `apiPeak`: the main API's high-water mark,
 * NaN when it died before the end, null when this run did not start it.
 */
export function render(
  apiPeak: number | null,
  before: number[],
  after: number[],
) {
  const f = (n: number) =>
    n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const lines = [
    `Zest benchmark (${QUICK ? 'QUICK: harness check, figures not meaningful' : 'full'}) — ${new Date().toISOString()}`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${f(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; ` +
      `load average before ${before.map((l) => l.toFixed(2)).join('/')}, after ${after.map((l) => l.toFixed(2)).join('/')}`,
    `Runs: ${DURATION} s each; side-by-side rows are medians of ${ROUNDS} A/B rounds. Latency in ms, RSS in MiB; steal: % of the machine's CPU time the hypervisor took during the run.`,
    '',
    '| Scenario | Zest req/s | p50 | p99 | errors | peak RSS | steal | Baseline req/s | p50 | p99 | errors | peak RSS | steal | Zest/baseline | Budget | Result |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const row of rows) {
    const z = row.zest;
    const b = row.baseline;
    const errors = (m: Measured) => f(m.errors + m.timeouts + m.non2xx);
    const steal = (m: Measured) => `${m.stealPercent.toFixed(0)} %`;
    lines.push(
      `| ${row.name}${row.note ? ` (${row.note})` : ''} | ${f(z.requestsPerSecond)} | ${z.p50} | ${z.p99} | ${errors(z)} | ${f(z.peakRssMiB)} | ${steal(z)} | ` +
        (b
          ? `${f(b.requestsPerSecond)} | ${b.p50} | ${b.p99} | ${errors(b)} | ${f(b.peakRssMiB)} | ${steal(b)} | ${(z.requestsPerSecond / b.requestsPerSecond).toFixed(2)}×`
          : '– | – | – | – | – | – | –') +
        ` | ${row.budget ?? '–'} | ${row.pass === undefined ? '–' : row.pass ? 'PASS' : 'FAIL'} |`,
    );
  }
  if (apiPeak === null) return lines.join('\n');
  lines.push(
    Number.isNaN(apiPeak)
      ? '| API process peak RSS (whole run) (the API process had exited) | | | | | – | | | | | | | | | ≤ 256 MiB | FAIL |'
      : `| API process peak RSS (whole run) | | | | | ${f(apiPeak)} | | | | | | | | | ≤ 256 MiB | ${apiPeak <= 256 ? 'PASS' : 'FAIL'} |`,
  );
  return lines.join('\n');
}
