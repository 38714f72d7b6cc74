import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WEBHOOK_RELAY_QUEUE } from './webhook-relay.queue';

const RELAY_BATCH = 200;
const SWEEP_BATCH = 500;
const RETENTION_BATCH = 1000;

/**
 * The outbox relay and the sweeper, run by the worker. Deliveries are rows
 * first and jobs second: a crash between the two leaves a due pending row,
 * which the sweeper enqueues; a repeated enqueue is a no-op (deterministic
 * job ids) and a repeated attempt is refused by the delivery's claim.
 */
@Injectable()
export class WebhookRelayService {
  private readonly logger = new Logger(WebhookRelayService.name);

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly queue: WebhookDeliveryQueue,
    @InjectQueue(WEBHOOK_RELAY_QUEUE) private readonly relayQueue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The safety net behind the commit nudges; idempotent across worker replicas (one scheduler id). */
  async scheduleSweeps(everyMs: number): Promise<void> {
    await this.relayQueue.upsertJobScheduler(
      'webhook-sweep',
      { every: everyMs },
      { name: 'sweep', opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  /** Relays every unrelayed event; returns how many deliveries were created. */
  async relay(): Promise<number> {
    let created = 0;
    for (;;) {
      const batch = await this.deliveries.relayBatch(RELAY_BATCH);
      await this.queue.addFirstAttempts(batch.ids);
      created += batch.ids.length;
      if (batch.events < RELAY_BATCH) return created;
    }
  }

  /**
   * Re-enqueues due deliveries whose job is missing, finished or failed,
   * and deletes events past their retention.
   */
  async sweep(): Promise<number> {
    await this.deliveries.deleteOlderThan(
      this.config.webhooks.retentionDays,
      RETENTION_BATCH,
    );
    let requeued = 0;
    for (const delivery of await this.deliveries.due(SWEEP_BATCH)) {
      if (
        await this.queue.ensure(
          delivery.id,
          delivery.attempts + 1,
          delivery.nextAttemptAt,
        )
      )
        requeued++;
    }
    if (requeued > 0)
      this.logger.log(`Re-enqueued ${requeued} due webhook deliveries`);
    return requeued;
  }
}
