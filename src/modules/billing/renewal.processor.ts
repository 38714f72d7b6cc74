import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  Inject,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { Queue } from 'bullmq';
import { Clock } from '../../common/clock';
import { RepeatingTask, repeatEvery } from '../../common/repeat-every';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  BILLING_RENEWAL_QUEUE,
  RENEWAL_SCHEDULER_ID,
  RenewalSweepJob,
} from './renewal.queue';
import { RenewalService } from './renewal.service';

/**
 * Runs the renewal sweep on a BullMQ job scheduler. Every worker upserts the
 * same scheduler id, so there is one schedule however many workers run;
 * sweeps that still overlap are safe (SKIP LOCKED, one step per lock).
 * The scheduler lives in Redis, so it is upserted again periodically: a
 * Redis that lost its data would otherwise never renew anything again.
 */
@Processor(BILLING_RENEWAL_QUEUE)
export class RenewalProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnModuleDestroy
{
  private readonly logger = new Logger(RenewalProcessor.name);
  private schedules: RepeatingTask | undefined;

  constructor(
    private readonly renewals: RenewalService,
    private readonly clock: Clock,
    @InjectQueue(BILLING_RENEWAL_QUEUE)
    private readonly queue: Queue<RenewalSweepJob>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    const every = this.config.billing.sweepIntervalMs;
    this.schedules = repeatEvery(
      Math.max(every, 10_000),
      () =>
        this.queue.upsertJobScheduler(
          RENEWAL_SCHEDULER_ID,
          { every },
          {
            name: 'sweep',
            data: { kind: 'sweep' },
            opts: { removeOnComplete: 100, removeOnFail: 100 },
          },
        ),
      (error) =>
        this.logger.warn({ err: error }, 'Could not schedule renewals'),
    );
    await this.schedules.first;
  }

  onModuleDestroy() {
    this.schedules?.stop();
  }

  async process(): Promise<{ steps: number }> {
    return this.renewals.sweep(this.clock.now());
  }
}
