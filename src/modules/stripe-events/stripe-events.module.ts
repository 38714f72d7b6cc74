import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillingModule } from '../billing/billing.module';
import { PaymentModule } from '../payment/payment.module';
import { StripeEvent } from './stripe-event.entity';
import { StripeEventHandlers } from './stripe-event-handlers';
import { StripeEventProcessing } from './stripe-event-processing';
import { StripeEventRepository } from './stripe-event.repository';
import {
  STRIPE_EVENTS_QUEUE,
  STRIPE_EVENTS_SWEEP_QUEUE,
  StripeEventsQueue,
} from './stripe-events.queue';
import { StripeInbox } from './stripe-inbox.service';
import { StripeWebhookController } from './stripe-webhook.controller';

/**
 * Stripe's webhooks in: the endpoint stores each event in an inbox
 * (`stripe_events`), the worker processes it (StripeEventsProcessor and
 * StripeEventsSweepProcessor, in ProcessorsModule): refunds and disputes made at Stripe reach orders and
 * invoices, intents' outcomes settle payment attempts.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([StripeEvent]),
    BullModule.registerQueue(
      { name: STRIPE_EVENTS_QUEUE },
      { name: STRIPE_EVENTS_SWEEP_QUEUE },
    ),
    PaymentModule,
    BillingModule,
  ],
  controllers: [StripeWebhookController],
  providers: [
    StripeEventRepository,
    StripeEventsQueue,
    StripeInbox,
    StripeEventHandlers,
    StripeEventProcessing,
  ],
  exports: [StripeEventProcessing, BullModule],
})
export class StripeEventsModule {}
