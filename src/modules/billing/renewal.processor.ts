import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Clock } from '../../common/clock';
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
 */
@Processor(BILLING_RENEWAL_QUEUE)
export class RenewalProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
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
    await this.queue.upsertJobScheduler(
      RENEWAL_SCHEDULER_ID,
      { every: this.config.billing.sweepIntervalMs },
      {
        name: 'sweep',
        data: { kind: 'sweep' },
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }

  async process(): Promise<{ steps: number }> {
    return this.renewals.sweep(this.clock.now());
  }
}
