import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StoreModule } from '../store/store.module';
import { Outbox } from './outbox';
import { WebhookController } from './webhook.controller';
import { Webhook } from './webhook.entity';
import { WebhookRepository } from './webhook.repository';
import { WebhookSerializer } from './webhook.serializer';
import { WebhookService } from './webhook.service';
import { WebhookDeliveryController } from './webhook-delivery.controller';
import {
  WEBHOOK_DELIVERY_QUEUE,
  WebhookDeliveryQueue,
} from './webhook-delivery.queue';
import { WebhookAttemptRepository } from './webhook-attempt.repository';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookDeliverySerializer } from './webhook-delivery.serializer';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WEBHOOK_RELAY_QUEUE, WebhookRelayNudge } from './webhook-relay.queue';
import { WebhookRelayService } from './webhook-relay.service';
import {
  parseDeliveryId,
  WebhookDeliveryReader,
  WebhookReader,
} from './webhook.reader';
import { registerResources } from '../../http/json-api/resource';

/**
 * Webhooks, the outbox every domain module writes events to, and deliveries.
 * Other modules use only `Outbox`; the relay and delivery services are for
 * the processors (ProcessorsModule).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Webhook]),
    BullModule.registerQueue(
      { name: WEBHOOK_RELAY_QUEUE },
      { name: WEBHOOK_DELIVERY_QUEUE },
    ),
    StoreModule,
  ],
  controllers: [WebhookController, WebhookDeliveryController],
  providers: [
    Outbox,
    WebhookRelayNudge,
    WebhookRepository,
    WebhookService,
    WebhookSerializer,
    WebhookDeliveryRepository,
    WebhookAttemptRepository,
    WebhookDeliveryQueue,
    WebhookDeliveryService,
    WebhookDeliverySerializer,
    WebhookRelayService,
    WebhookReader,
    WebhookDeliveryReader,
    registerResources(
      {
        type: 'webhooks',
        serializer: WebhookSerializer,
        reader: WebhookReader,
      },
      {
        type: 'webhook-deliveries',
        serializer: WebhookDeliverySerializer,
        reader: WebhookDeliveryReader,
        parseId: parseDeliveryId,
      },
    ),
  ],
  exports: [Outbox, WebhookRelayService, WebhookDeliveryService],
})
export class WebhooksModule {}
