import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import { StripeTaxRecords } from './stripe-tax-records';
import {
  STRIPE_TAX_EVERY_MS,
  STRIPE_TAX_QUEUE,
  STRIPE_TAX_SCHEDULER,
} from './stripe-tax.queue';

/**
 * Records owed Stripe Tax transactions and reversals at Stripe: right after
 * a sale or refund commits (`record` jobs, retried with backoff) and every
 * minute for whatever is still open.
 */
@Processor(STRIPE_TAX_QUEUE)
export class StripeTaxProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  private readonly logger = new Logger(StripeTaxProcessor.name);

  constructor(
    private readonly records: StripeTaxRecords,
    @InjectQueue(STRIPE_TAX_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    await this.queue.upsertJobScheduler(
      STRIPE_TAX_SCHEDULER,
      { every: STRIPE_TAX_EVERY_MS },
      { name: 'record', opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }

  async process(): Promise<{ recorded: number }> {
    const recorded = await this.records.recordOpen();
    if (recorded > 0)
      this.logger.log(`Recorded ${recorded} Stripe Tax transactions`);
    return { recorded };
  }
}
