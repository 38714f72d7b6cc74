import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';

export const WEBHOOK_RELAY_QUEUE = 'webhook-relay';

/** `relay` turns unrelayed outbox events into deliveries; `sweep` re-enqueues due deliveries. */
export type WebhookRelayJobName = 'relay' | 'sweep';

/**
 * Nudges the relay right after a transaction with outbox events commits, so
 * deliveries start within milliseconds. The nudge is only an optimisation:
 * the relay's job scheduler also runs it every WEBHOOK_RELAY_INTERVAL_MS, so
 * a lost nudge (queue down, process killed after commit) delays an event,
 * never loses it.
 */
@Injectable()
export class WebhookRelayNudge {
  private readonly logger = new Logger(WebhookRelayNudge.name);

  constructor(@InjectQueue(WEBHOOK_RELAY_QUEUE) private readonly queue: Queue) {
    // Without a listener BullMQ prints connection errors to the console.
    queue.on('error', (error) =>
      this.logger.warn({ err: error }, 'Webhook relay queue error'),
    );
  }

  nudge(): void {
    this.queue
      .add('relay', null, { removeOnComplete: true, removeOnFail: 100 })
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error },
          'Could not nudge the webhook relay; the scheduler will pick the events up',
        ),
      );
  }
}
