import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Queue } from 'bullmq';

export const HEALTH_QUEUE = 'health';
const CHECK_TIMEOUT_MS = 3000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out after ${ms} ms`)),
      ms,
    );
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, { status: 'up' | 'down'; message?: string }>;
}

/** Liveness and readiness, shared by the API's routes and the worker's health listener. */
@Injectable()
export class HealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    @InjectQueue(HEALTH_QUEUE) private readonly queue: Queue,
  ) {}

  /** Ready when the database and the queue backend both answer. */
  async readiness(): Promise<Readiness> {
    try {
      const result = await this.health.check([
        () =>
          this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS }),
        () => this.queueCheck(),
      ]);
      return { ready: true, checks: this.summarize(result.details) };
    } catch (error) {
      const details = (
        error as {
          response?: {
            details?: Record<string, { status: string; message?: string }>;
          };
        }
      ).response?.details;
      return { ready: false, checks: this.summarize(details ?? {}) };
    }
  }

  private async queueCheck() {
    const indicator = this.indicators.check('queue');
    try {
      await withTimeout(this.queue.getJobCounts('waiting'), CHECK_TIMEOUT_MS);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }

  private summarize(
    details: Record<string, { status: string; message?: string }>,
  ) {
    const checks: Readiness['checks'] = {};
    for (const [name, detail] of Object.entries(details)) {
      checks[name] =
        detail.status === 'up'
          ? { status: 'up' }
          : { status: 'down', message: detail.message };
    }
    return checks;
  }
}
