import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';

export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';

/** One attempt of one delivery; PostgreSQL holds the delivery's state. */
export interface WebhookDeliveryJob {
  deliveryId: string;
  attempt: number;
}

/** Deterministic, so enqueueing an attempt twice is a no-op (BullMQ custom ids may not contain ':'). */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `delivery-${deliveryId}-${attempt}`;
}

function jobOptions(deliveryId: string, attempt: number, delayMs: number) {
  return {
    jobId: deliveryJobId(deliveryId, attempt),
    delay: Math.max(0, Math.round(delayMs)),
    // A thrown error (database away) is retried; the send itself never throws.
    attempts: 5,
    backoff: { type: 'exponential' as const, delay: 1000 },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  };
}

@Injectable()
export class WebhookDeliveryQueue {
  private readonly logger = new Logger(WebhookDeliveryQueue.name);

  constructor(
    @InjectQueue(WEBHOOK_DELIVERY_QUEUE)
    private readonly queue: Queue<WebhookDeliveryJob>,
  ) {
    // Without a listener BullMQ prints connection errors to the console.
    queue.on('error', (error) =>
      this.logger.warn({ err: error }, 'Webhook delivery queue error'),
    );
  }

  /** Enqueues an attempt of a delivery (one round trip; an existing job wins). */
  async add(deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    await this.queue.add(
      'deliver',
      { deliveryId, attempt },
      jobOptions(deliveryId, attempt, delayMs),
    );
  }

  /** Enqueues the first attempts of new deliveries in one round trip. */
  async addFirstAttempts(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.queue.addBulk(
      deliveryIds.map((deliveryId) => ({
        name: 'deliver',
        data: { deliveryId, attempt: 1 },
        opts: jobOptions(deliveryId, 1, 0),
      })),
    );
  }

  /**
   * Makes sure the attempt is in the queue and runs by `dueAt`: a finished
   * job with that id (completed as a no-op, or failed after stalling more
   * than maxStalledCount times) is removed so the attempt can run again; a
   * delayed one is promoted when due. Returns true if it had to act.
   */
  async ensure(
    deliveryId: string,
    attempt: number,
    dueAt: Date,
  ): Promise<boolean> {
    const job = await this.queue.getJob(deliveryJobId(deliveryId, attempt));
    const delayMs = dueAt.getTime() - Date.now();
    if (job) {
      const state = await job.getState();
      if (state === 'delayed') {
        if (delayMs > 0) return false;
        await job.promote();
        return true;
      }
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown')
        return false;
      await job.remove();
    }
    await this.add(deliveryId, attempt, delayMs);
    return true;
  }
}
