import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap } from '@nestjs/common';
import { Job } from 'bullmq';
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
// On the embedded database NOTIFY cannot wake an idle worker (PGlite is one
// session), so the idle wait is capped at 1 s instead of BullMQ's 5 s.
@Processor(WEBHOOK_RELAY_QUEUE, { drainDelay: 1 })
export class WebhookRelayProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  constructor(
    private readonly relay: WebhookRelayService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    await this.relay.scheduleSweeps(this.config.webhooks.relayIntervalMs);
  }

  async process(job: Job<null, void, WebhookRelayJobName>): Promise<void> {
    await this.relay.relay();
    if (job.name === 'sweep') await this.relay.sweep();
  }
}
