import { createServer } from 'node:http';

/**
 * The local webhook receiver: answers 200 at once and records, per delivery,
 * when it arrived and how long after its event was written (the generator
 * puts the write time into the event's custom_data). Forked by the
 * orchestrator; answers a `report` message with the figures since `reset`.
 */

interface Sample {
  at: number;
  latency: number;
  phase: string;
}

let samples: Sample[] = [];
const seen = new Set<string>();
let duplicates = 0;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const now = Date.now();
    response.writeHead(200).end();
    const id = String(request.headers['webhook-id'] ?? '');
    if (seen.has(id)) {
      duplicates++;
      return;
    }
    seen.add(id);
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        meta?: { custom_data?: { bench_at?: number; bench_phase?: string } };
      };
      const custom = body.meta?.custom_data ?? {};
      samples.push({
        at: now,
        latency: now - (custom.bench_at ?? now),
        phase: custom.bench_phase ?? '',
      });
    } catch {
      samples.push({ at: now, latency: 0, phase: 'unparsable' });
    }
  });
});

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return 0;
  return sorted[
    Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
  ];
}

process.on('message', (message: { type: string; phase?: string }) => {
  if (message.type === 'reset') {
    samples = [];
    duplicates = 0;
    process.send!({ type: 'reset' });
  } else if (message.type === 'report') {
    const mine = samples.filter((s) => s.phase === message.phase);
    const latencies = mine.map((s) => s.latency).sort((a, b) => a - b);
    const times = mine.map((s) => s.at);
    process.send!({
      type: 'report',
      count: mine.length,
      duplicates,
      first: times.length ? Math.min(...times) : 0,
      last: times.length ? Math.max(...times) : 0,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    });
  }
});

server.listen(Number(process.env.PORT ?? 3199), '127.0.0.1', () =>
  process.send!({ type: 'ready' }),
);
