import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job } from 'bullmq';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  WEBHOOK_DELIVERY_QUEUE,
  WebhookDeliveryJob,
} from './webhook-delivery.queue';
import { WebhookDeliveryService } from './webhook-delivery.service';

@Processor(WEBHOOK_DELIVERY_QUEUE)
export class WebhookDeliveryProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(
    private readonly deliveries: WebhookDeliveryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap() {
    // Deliveries mostly wait on the network, so several run per process.
    this.worker.concurrency = this.config.webhooks.concurrency;
  }

  /** Queue connection errors (Redis away): logged, not printed by BullMQ to the console. */
  @OnWorkerEvent('error')
  onWorkerError(error: Error) {
    this.logger.warn({ err: error }, 'Webhook delivery worker error');
  }

  async process(job: Job<WebhookDeliveryJob>): Promise<void> {
    await this.deliveries.attempt(job.data.deliveryId, job.data.attempt);
  }
}
