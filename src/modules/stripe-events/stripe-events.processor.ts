import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { StripeEventProcessing } from './stripe-event-processing';
import {
  STRIPE_EVENTS_QUEUE,
  STRIPE_EVENTS_SWEEP_EVERY_MS,
  STRIPE_EVENTS_SWEEP_QUEUE,
  STRIPE_EVENTS_SWEEP_SCHEDULER,
} from './stripe-events.queue';

/** `process` jobs come from the endpoint, one per stored event. */
@Processor(STRIPE_EVENTS_QUEUE)
export class StripeEventsProcessor extends WorkerHost {
  constructor(private readonly processing: StripeEventProcessing) {
    super();
  }

  async process(job: Job<{ id: string }>): Promise<unknown> {
    await this.processing.process(job.data.id);
    return null;
  }

  async onModuleDestroy() {
    // Closing waits for no job in flight: an interrupted event stays
    // unprocessed and the sweep takes it. A graceful close could hang on
    // the embedded database's single session (as the mail worker's did).
    await this.worker.close(true);
  }
}

/**
 * `sweep` jobs from a scheduler every minute, for the events whose job was
 * lost (a crash between receipt and processing) or ran out of retries.
 */
@Processor(STRIPE_EVENTS_SWEEP_QUEUE)
export class StripeEventsSweepProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  private readonly logger = new Logger(StripeEventsSweepProcessor.name);

  constructor(
    private readonly processing: StripeEventProcessing,
    @InjectQueue(STRIPE_EVENTS_SWEEP_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    await this.queue.upsertJobScheduler(
      STRIPE_EVENTS_SWEEP_SCHEDULER,
      { every: STRIPE_EVENTS_SWEEP_EVERY_MS },
      { name: 'sweep', opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }

  async onModuleDestroy() {
    // A sweep cut short leaves its rows for the next one; a graceful close
    // would wait on the blocked poll for the next scheduled sweep.
    await this.worker.close(true);
  }

  async process(): Promise<unknown> {
    const processed = await this.processing.sweep();
    if (processed > 0)
      this.logger.log(`Processed ${processed} swept Stripe events`);
    return { processed };
  }
}
