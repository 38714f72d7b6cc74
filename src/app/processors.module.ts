import { Module } from '@nestjs/common';
import { IdempotencyPurgeProcessor } from '../http/idempotency/idempotency-purge.processor';
import { IdempotencyModule } from '../http/idempotency/idempotency.module';
import { AccountModule } from '../modules/account/account.module';
import { ApiKeyUsageProcessor } from '../modules/account/api-key-usage.processor';
import { BillingModule } from '../modules/billing/billing.module';
import { RenewalProcessor } from '../modules/billing/renewal.processor';
import { WebhookDeliveryProcessor } from '../modules/webhooks/webhook-delivery.processor';
import { WebhookRelayProcessor } from '../modules/webhooks/webhook-relay.processor';
import { WebhooksModule } from '../modules/webhooks/webhooks.module';

/** Every BullMQ processor. Loaded by the worker (and by the embedded single process), never by the API. */
@Module({
  imports: [AccountModule, IdempotencyModule, WebhooksModule, BillingModule],
  providers: [
    ApiKeyUsageProcessor,
    IdempotencyPurgeProcessor,
    WebhookRelayProcessor,
    WebhookDeliveryProcessor,
    RenewalProcessor,
  ],
})
export class ProcessorsModule {}
