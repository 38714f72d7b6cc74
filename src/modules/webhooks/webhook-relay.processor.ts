import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  Inject,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { Job } from 'bullmq';
import { RepeatingTask, repeatEvery } from '../../common/repeat-every';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  WEBHOOK_RELAY_QUEUE,
  WebhookRelayJobName,
} from './webhook-relay.queue';
import { WebhookRelayService } from './webhook-relay.service';

/**
 * `relay` jobs come from commit nudges; `sweep` jobs from a job scheduler
 * every WEBHOOK_RELAY_INTERVAL_MS, which relays too, so events are
 * delivered even when every nudge was lost.
 */
@Processor(WEBHOOK_RELAY_QUEUE)
export class WebhookRelayProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnModuleDestroy
{
  private readonly logger = new Logger(WebhookRelayProcessor.name);
  private schedules: RepeatingTask | undefined;

  constructor(
    private readonly relay: WebhookRelayService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap() {
    const every = this.config.webhooks.relayIntervalMs;
    // The first upsert is not awaited: a worker starts even while Redis is
    // away. Upserting again is idempotent and re-creates the scheduler if
    // Redis lost its data.
    this.schedules = repeatEvery(
      Math.max(10 * every, 1000),
      () => this.relay.scheduleSweeps(every),
      (error) =>
        this.logger.warn({ err: error }, 'Could not schedule webhook sweeps'),
    );
  }

  /** Queue connection errors (Redis away): logged, not printed by BullMQ to the console. */
  @OnWorkerEvent('error')
  onWorkerError(error: Error) {
    this.logger.warn({ err: error }, 'Webhook relay worker error');
  }

  onModuleDestroy() {
    this.schedules?.stop();
  }

  async process(job: Job<null, void, WebhookRelayJobName>): Promise<void> {
    await this.relay.relay();
    if (job.name === 'sweep') await this.relay.sweep();
  }
}
