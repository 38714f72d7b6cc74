import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';

/** `process` jobs: one stored event each (by row id). */
export const STRIPE_EVENTS_QUEUE = 'stripe-events';
/**
 * `sweep` jobs, every minute, for the events left unprocessed. A queue of
 * their own since the embedded database could not wake a worker whose queue
 * held a delayed job (it can now); kept, as moving a job scheduler to
 * another queue would leave the one that deployments hold running unserved.
 */
export const STRIPE_EVENTS_SWEEP_QUEUE = 'stripe-events-sweep';
/** The job scheduler's id: upserting it again on every worker start is a no-op. */
export const STRIPE_EVENTS_SWEEP_SCHEDULER = 'sweep-unprocessed-stripe-events';
export const STRIPE_EVENTS_SWEEP_EVERY_MS = 60 * 1000;

/**
 * Hands a stored event to the worker once its row is committed. Losing the
 * job (Redis away, a crash right after the commit) delays the event, never
 * loses it: the sweep processes every row still unprocessed.
 */
@Injectable()
export class StripeEventsQueue {
  private readonly logger = new Logger(StripeEventsQueue.name);

  constructor(@InjectQueue(STRIPE_EVENTS_QUEUE) private readonly queue: Queue) {
    queue.on('error', (error) =>
      this.logger.warn({ err: error }, 'Stripe events queue error'),
    );
  }

  async enqueue(id: string): Promise<void> {
    try {
      await this.queue.add(
        'process',
        { id },
        {
          jobId: `stripe-event-${id}`,
          attempts: 5,
          backoff: { type: 'exponential', delay: 2000 },
          removeOnComplete: true,
          removeOnFail: 100,
        },
      );
    } catch (error) {
      this.logger.warn(
        { err: error },
        'Could not enqueue a Stripe event; the sweep will process it',
      );
    }
  }
}
