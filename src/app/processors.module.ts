import { Module } from '@nestjs/common';
import { AccountModule } from '../modules/account/account.module';
import { ApiKeyUsageProcessor } from '../modules/account/api-key-usage.processor';
import { InvoicePdfProcessor } from '../modules/invoice/invoice-pdf.processor';
import { InvoiceModule } from '../modules/invoice/invoice.module';
import { WebhookDeliveryProcessor } from '../modules/webhooks/webhook-delivery.processor';
import { WebhookRelayProcessor } from '../modules/webhooks/webhook-relay.processor';
import { WebhooksModule } from '../modules/webhooks/webhooks.module';

/** Every BullMQ processor. Loaded by the worker (and by the embedded single process), never by the API. */
@Module({
  imports: [AccountModule, WebhooksModule, InvoiceModule],
  providers: [
    ApiKeyUsageProcessor,
    WebhookRelayProcessor,
    WebhookDeliveryProcessor,
    InvoicePdfProcessor,
  ],
})
export class ProcessorsModule {}
