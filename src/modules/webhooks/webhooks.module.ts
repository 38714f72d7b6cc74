import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { Outbox } from './outbox';
import { WEBHOOK_RELAY_QUEUE, WebhookRelayNudge } from './webhook-relay.queue';

/** Webhooks, the outbox every domain module writes events to, and deliveries. */
@Module({
  imports: [BullModule.registerQueue({ name: WEBHOOK_RELAY_QUEUE })],
  providers: [Outbox, WebhookRelayNudge],
  exports: [Outbox],
})
export class WebhooksModule {}
