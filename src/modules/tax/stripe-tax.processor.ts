import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import { StripeTaxRecords } from './stripe-tax-records';
import {
  STRIPE_TAX_EVERY_MS,
  STRIPE_TAX_QUEUE,
  STRIPE_TAX_SCHEDULER,
  STRIPE_TAX_SWEEP_QUEUE,
} from './stripe-tax.queue';

/**
 * Records owed Stripe Tax transactions and reversals at Stripe, right after
 * a sale or refund commits (`record` jobs, retried with backoff).
 */
@Processor(STRIPE_TAX_QUEUE)
export class StripeTaxProcessor extends WorkerHost {
  private readonly logger = new Logger(StripeTaxProcessor.name);

  constructor(private readonly records: StripeTaxRecords) {
    super();
  }

  async process(): Promise<{ recorded: number }> {
    const recorded = await this.records.recordOpen();
    if (recorded > 0)
      this.logger.log(`Recorded ${recorded} Stripe Tax transactions`);
    return { recorded };
  }

  async onModuleDestroy() {
    // An interrupted run leaves its rows open for the next one; a graceful
    // close could hang on the embedded database's single session.
    await this.worker.close(true);
  }
}

/** Every minute, whatever is still open (Stripe was down, a lost job). */
@Processor(STRIPE_TAX_SWEEP_QUEUE)
export class StripeTaxSweepProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  constructor(
    private readonly records: StripeTaxRecords,
    @InjectQueue(STRIPE_TAX_SWEEP_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    await this.queue.upsertJobScheduler(
      STRIPE_TAX_SCHEDULER,
      { every: STRIPE_TAX_EVERY_MS },
      { name: 'sweep', opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }

  async process(): Promise<{ recorded: number }> {
    return { recorded: await this.records.recordOpen() };
  }

  async onModuleDestroy() {
    await this.worker.close(true);
  }
}
