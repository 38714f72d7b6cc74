import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { DIST_BENCH, PORTS, QUICK, STATE, zestEnv } from '../harness/options';
import {
  cpuTicks,
  memory,
  message,
  sleep,
  start,
  stealSince,
  stop,
} from '../harness/processes';
import { addRow } from '../harness/table';
import type { BenchState } from '../state';

interface ReceiverReport {
  count: number;
  duplicates: number;
  first: number;
  last: number;
  p50: number;
  p99: number;
}

export async function webhooks(state: BenchState, worker: ChildProcess) {
  const receiver = start(
    'receiver',
    join(DIST_BENCH, 'receiver.js'),
    {
      PATH: process.env.PATH ?? '',
      PORT: String(PORTS.receiver),
    },
    true,
  );
  await message(receiver, 'ready');
  const events = start(
    'events',
    join(DIST_BENCH, 'events.js'),
    { ...zestEnv(PORTS.api), BENCH_STATE: STATE },
    true,
  );
  await message(events, 'ready');
  const ready = message<{ id: number }>(events, 'webhook');
  events.send({
    type: 'webhook',
    url: `http://127.0.0.1:${PORTS.receiver}/hook`,
  });
  const webhook = await ready;

  const report = async (phase: string, expected: number) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = message<ReceiverReport>(receiver, 'report');
      receiver.send({ type: 'report', phase });
      const figures = await answer;
      if (figures.count >= expected || Date.now() > deadline) return figures;
      await sleep(250);
    }
  };

  // Throughput: a burst of events, delivered by the one worker as fast as it can.
  const burst = QUICK ? 1_000 : 20_000;
  let peak = 0;
  const sampler = setInterval(
    () => (peak = Math.max(peak, memory(worker.pid).rss)),
    100,
  );
  const burstStart = Date.now();
  const burstTicks = cpuTicks();
  const burstDone = message<{ ms: number }>(events, 'burst');
  events.send({ type: 'burst', count: burst, phase: 'burst' });
  await burstDone;
  const throughput = await report('burst', burst);
  const seconds = (throughput.last - burstStart) / 1000;
  const perSecond = throughput.count / seconds;
  addRow({
    name: `webhook deliveries, burst of ${burst} events (1 worker)`,
    zest: {
      requestsPerSecond: perSecond,
      okPerSecond: perSecond,
      p50: throughput.p50,
      p99: throughput.p99,
      ok: throughput.count,
      non2xx: 0,
      errors: burst - throughput.count,
      timeouts: 0,
      statusCounts: {},
      peakRssMiB: peak,
      stealPercent: stealSince(burstTicks),
    },
    budget: '≥ 1,000 deliveries/s',
    pass: perSecond >= 1000 && throughput.count === burst,
    note: `${throughput.duplicates} duplicates; worker RSS`,
  });

  // Latency: 200 events a second, each in its own transaction.
  const rateSeconds = QUICK ? 3 : 30;
  const rateTicks = cpuTicks();
  const rateDone = message<{ ms: number }>(events, 'rate');
  events.send({
    type: 'rate',
    perSecond: 200,
    seconds: rateSeconds,
    phase: 'rate',
  });
  await rateDone;
  const latency = await report('rate', 200 * rateSeconds);
  clearInterval(sampler);
  addRow({
    name: 'webhook event-to-delivery at 200 events/s',
    zest: {
      requestsPerSecond: latency.count / rateSeconds,
      okPerSecond: latency.count / rateSeconds,
      p50: latency.p50,
      p99: latency.p99,
      ok: latency.count,
      non2xx: 0,
      errors: 200 * rateSeconds - latency.count,
      timeouts: 0,
      statusCounts: {},
      peakRssMiB: peak,
      stealPercent: stealSince(rateTicks),
    },
    budget: 'p99 ≤ 1 s',
    pass: latency.p99 <= 1000 && latency.count === 200 * rateSeconds,
    note: 'latency = receipt − write; worker RSS',
  });
  const removed = message(events, 'removed');
  events.send({ type: 'remove-webhook', id: webhook.id });
  await removed;
  await Promise.all([stop(events), stop(receiver)]);
}
