import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job, Queue } from 'bullmq';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
} from 'prom-client';
import type { DataSource } from 'typeorm';

/** Job states reported as queue depth. */
const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'failed',
  'completed',
] as const;

/** What a scrape may wait for the queue backend or the database. */
const COLLECT_TIMEOUT_MS = 2000;

/** The pg pool behind TypeORM's postgres driver (not typed by TypeORM). */
interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The process's Prometheus metrics (`GET /metrics` on the API and on the
 * worker's health listener). One registry per application, so that several
 * apps in one process (the tests) do not share series. Queues and workers are
 * found among the providers when the application starts, so a module's new
 * queue is measured without being named here.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap {
  readonly registry = new Registry();

  private readonly httpRequestDuration = new Histogram({
    name: 'zest_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code, with their duration.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'zest_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (a later attempt is scheduled) or failed (no attempt left).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly mailMessages = new Counter({
    name: 'zest_mail_messages_total',
    help: 'Mail sending attempts this process settled, by outcome: sent, retrying (a later attempt is scheduled) or failed (refused, unsendable, or no attempt left).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  private readonly jobs = new Counter({
    name: 'zest_queue_jobs_total',
    help: 'BullMQ jobs this process finished, by queue and outcome (completed, failed).',
    labelNames: ['queue', 'outcome'],
    registers: [this.registry],
  });

  private readonly jobDuration = new Histogram({
    name: 'zest_queue_job_duration_seconds',
    help: 'Processing time of the BullMQ jobs this process finished, by queue.',
    labelNames: ['queue'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
    registers: [this.registry],
  });

  private queues: Queue[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    collectDefaultMetrics({ register: this.registry });
    const queueJobs: Gauge<'queue' | 'state'> = new Gauge({
      name: 'zest_queue_jobs',
      help: 'BullMQ jobs by queue and state, read from the queue backend at each scrape (a queue the backend does not answer for is left out).',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      collect: () => this.collectQueues(queueJobs),
    });
    const pool: Gauge<'state'> = new Gauge({
      name: 'zest_db_pool_connections',
      help: "The application's database pool: connections by state (total, idle, waiting clients).",
      labelNames: ['state'],
      registers: [this.registry],
      collect: () => this.collectPool(pool),
    });
    const outboxLag: Gauge = new Gauge({
      name: 'zest_outbox_lag_seconds',
      help: 'Age of the oldest webhook event not yet relayed to deliveries (0 when none waits; left out when the database does not answer).',
      registers: [this.registry],
      collect: () => this.collectOutboxLag(outboxLag),
    });
  }

  onApplicationBootstrap() {
    const instances = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown);
    this.queues = [
      ...new Set(instances.filter((i): i is Queue => i instanceof Queue)),
    ];
    for (const host of instances) {
      if (!(host instanceof WorkerHost)) continue;
      const worker = host.worker;
      const finished = (job: Job | undefined, outcome: string) => {
        this.jobs.inc({ queue: worker.name, outcome });
        if (job?.processedOn && job.finishedOn) {
          this.jobDuration.observe(
            { queue: worker.name },
            (job.finishedOn - job.processedOn) / 1000,
          );
        }
      };
      worker.on('completed', (job: Job) => finished(job, 'completed'));
      worker.on('failed', (job: Job | undefined) => finished(job, 'failed'));
    }
  }

  /** One answered request; `route` is the route's template (`/v1/orders/:id`), never the URL. */
  observeRequest(
    method: string,
    route: string | undefined,
    statusCode: number,
    seconds: number,
  ) {
    this.httpRequestDuration.observe(
      { method, route: route ?? 'unmatched', status_code: statusCode },
      seconds,
    );
  }

  /** The Prometheus text exposition of every series. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return {
      contentType: this.registry.contentType,
      body: await this.registry.metrics(),
    };
  }

  private async collectQueues(gauge: Gauge<'queue' | 'state'>) {
    gauge.reset();
    await Promise.all(
      this.queues.map(async (queue) => {
        const counts = await withTimeout(
          queue.getJobCounts(...QUEUE_STATES),
        ).catch(() => null);
        if (!counts) return;
        for (const state of QUEUE_STATES) {
          gauge.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      }),
    );
  }

  private collectPool(gauge: Gauge<'state'>) {
    if (!this.dataSource.isInitialized) return;
    const pool = (this.dataSource.driver as unknown as { master?: PgPool })
      .master;
    if (!pool) return;
    gauge.set({ state: 'total' }, pool.totalCount);
    gauge.set({ state: 'idle' }, pool.idleCount);
    gauge.set({ state: 'waiting' }, pool.waitingCount);
  }

  private async collectOutboxLag(gauge: Gauge) {
    gauge.reset();
    const rows = await withTimeout(
      this.dataSource.query<{ age: number | string | null }[]>(
        `SELECT extract(epoch FROM now() - created_at) AS age FROM webhook_events
          WHERE relayed_at IS NULL ORDER BY id LIMIT 1`,
      ),
    ).catch(() => null);
    if (!rows) return;
    gauge.set(rows.length > 0 ? Math.max(0, Number(rows[0].age)) : 0);
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out after ${COLLECT_TIMEOUT_MS} ms`)),
      COLLECT_TIMEOUT_MS,
    );
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
