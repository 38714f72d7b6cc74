import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { throttle } from '../../common/throttle';

export const WEBHOOK_RELAY_QUEUE = 'webhook-relay';

/** `relay` turns unrelayed outbox events into deliveries; `sweep` re-enqueues due deliveries. */
export type WebhookRelayJobName = 'relay' | 'sweep';

const NUDGE_EVERY_MS = 20;

/**
 * Nudges the relay right after a transaction with outbox events commits, so
 * deliveries start within milliseconds. The nudge is only an optimisation:
 * the relay's job scheduler also runs it every WEBHOOK_RELAY_INTERVAL_MS, so
 * a lost nudge (queue down, process killed after commit) delays an event,
 * never loses it.
 *
 * One relay run takes every event committed before it, so nudges are
 * throttled to one job per NUDGE_EVERY_MS per process (a nudge waits at most
 * that long): at 150 purchases a second, a job per commit cost the worker
 * and Redis more CPU than the relaying itself.
 */
@Injectable()
export class WebhookRelayNudge implements OnModuleDestroy {
  private readonly logger = new Logger(WebhookRelayNudge.name);
  private readonly throttled = throttle(NUDGE_EVERY_MS, () => this.enqueue());

  constructor(@InjectQueue(WEBHOOK_RELAY_QUEUE) private readonly queue: Queue) {
    // Without a listener BullMQ prints connection errors to the console.
    queue.on('error', (error) =>
      this.logger.warn({ err: error }, 'Webhook relay queue error'),
    );
  }

  nudge(): void {
    this.throttled.call();
  }

  onModuleDestroy() {
    // A nudge still waiting is left to the scheduled relay.
    this.throttled.cancel();
  }

  private enqueue() {
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
