import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { IdempotencyPurgeProcessor } from '../http/idempotency/idempotency-purge.processor';
import { IdempotencyModule } from '../http/idempotency/idempotency.module';
import { AccountModule } from '../modules/account/account.module';
import { ApiKeyUsageProcessor } from '../modules/account/api-key-usage.processor';
import { CatalogModule } from '../modules/catalog/catalog.module';
import { FileUploadExpiryProcessor } from '../modules/catalog/file-upload-expiry.processor';
import { BillingModule } from '../modules/billing/billing.module';
import { CurrencyModule } from '../modules/currency/currency.module';
import { ExchangeRateRefreshProcessor } from '../modules/currency/exchange-rate-refresh.processor';
import { RenewalProcessor } from '../modules/billing/renewal.processor';
import { InvoicePdfProcessor } from '../modules/invoice/invoice-pdf.processor';
import { InvoiceModule } from '../modules/invoice/invoice.module';
import { PaymentSweepProcessor } from '../modules/payment/payment-sweep.processor';
import { PaymentModule } from '../modules/payment/payment.module';
import { MailModule } from '../modules/mail/mail.module';
import {
  MailSchedulesProcessor,
  MailProcessor,
} from '../modules/mail/mail.processor';
import { WebhookDeliveryProcessor } from '../modules/webhooks/webhook-delivery.processor';
import { WebhookRelayProcessor } from '../modules/webhooks/webhook-relay.processor';
import { WebhooksModule } from '../modules/webhooks/webhooks.module';
import { EmbeddedWorkersShutdown } from '../queue/embedded-workers-shutdown';
import { StorageModule } from '../storage/storage.module';
import { StripeTaxModule } from '../modules/tax/stripe-tax.module';
import {
  StripeTaxProcessor,
  StripeTaxSweepProcessor,
} from '../modules/tax/stripe-tax.processor';
import { StripeEventsModule } from '../modules/stripe-events/stripe-events.module';
import {
  StripeEventsProcessor,
  StripeEventsSweepProcessor,
} from '../modules/stripe-events/stripe-events.processor';

/** Every BullMQ processor. Loaded by the worker (and by the embedded single process), never by the API. */
@Module({
  imports: [
    DiscoveryModule,
    AccountModule,
    IdempotencyModule,
    WebhooksModule,
    BillingModule,
    CurrencyModule,
    InvoiceModule,
    PaymentModule,
    StorageModule,
    CatalogModule,
    MailModule,
    StripeEventsModule,
    StripeTaxModule,
  ],
  providers: [
    ApiKeyUsageProcessor,
    IdempotencyPurgeProcessor,
    WebhookRelayProcessor,
    WebhookDeliveryProcessor,
    RenewalProcessor,
    ExchangeRateRefreshProcessor,
    InvoicePdfProcessor,
    PaymentSweepProcessor,
    MailProcessor,
    MailSchedulesProcessor,
    StripeEventsProcessor,
    StripeEventsSweepProcessor,
    StripeTaxProcessor,
    StripeTaxSweepProcessor,
    FileUploadExpiryProcessor,
    EmbeddedWorkersShutdown,
  ],
})
export class ProcessorsModule {}
