import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import {
  IDEMPOTENCY_PURGE_EVERY_MS,
  IDEMPOTENCY_PURGE_QUEUE,
  IDEMPOTENCY_PURGE_SCHEDULER,
} from './idempotency-purge.queue';
import { IdempotencyService } from './idempotency.service';

/**
 * Deletes idempotency records past their 24 hours, hourly. Expired rows are
 * already ignored (and reused) by the claim query, so this only bounds the
 * table's size.
 */
@Processor(IDEMPOTENCY_PURGE_QUEUE)
export class IdempotencyPurgeProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  private readonly logger = new Logger(IdempotencyPurgeProcessor.name);

  constructor(
    private readonly idempotency: IdempotencyService,
    @InjectQueue(IDEMPOTENCY_PURGE_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    await this.queue.upsertJobScheduler(
      IDEMPOTENCY_PURGE_SCHEDULER,
      { every: IDEMPOTENCY_PURGE_EVERY_MS },
      {
        name: 'purge',
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }

  async process(): Promise<{ deleted: number }> {
    const deleted = await this.idempotency.purgeExpired();
    if (deleted > 0)
      this.logger.log(`Purged ${deleted} expired idempotency keys`);
    return { deleted };
  }
}
