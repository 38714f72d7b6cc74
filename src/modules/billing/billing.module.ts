import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { registerResources } from '../../http/json-api/resource';
import { CheckoutModule } from '../checkout/checkout.module';
import { CurrencyModule } from '../currency/currency.module';
import { CustomerModule } from '../customer/customer.module';
import { InvoiceModule } from '../invoice/invoice.module';
import { LicenseKeyService } from '../licensing/license-key.service';
import { LicensingModule } from '../licensing/licensing.module';
import { PaymentModule } from '../payment/payment.module';
import { StoreModule } from '../store/store.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { InvoiceCollection } from './invoice-collection';
import { ProrationCharges } from './proration-charges';
import { InvoiceRevenue } from './invoice-revenue';
import { BILLING_RENEWAL_QUEUE } from './renewal.queue';
import { RenewalService } from './renewal.service';
import { RenewalTax } from './renewal-tax';
import {
  SUBSCRIPTION_END_FOLLOWER,
  SubscriptionBilling,
} from './subscription-billing.service';
import { SubscriptionInvoiceController } from './subscription-invoice.controller';
import { SubscriptionInvoice } from './subscription-invoice.entity';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionInvoiceSerializer } from './subscription-invoice.serializer';
import { SubscriptionInvoiceSource } from './subscription-invoice.source';
import { SubscriptionInvoiceService } from './subscription-invoice.service';
import { SubscriptionItemController } from './subscription-item.controller';
import { SubscriptionItem } from './subscription-item.entity';
import { SubscriptionItemReader } from './subscription-item.reader';
import { SubscriptionItemSerializer } from './subscription-item.serializer';
import { SubscriptionItemService } from './subscription-item.service';
import { PortalCardUpdates } from './portal-card-updates';
import { SubscriptionCardController } from './subscription-card.controller';
import { SubscriptionPortalController } from './subscription-portal.controller';
import { SubscriptionPortalService } from './subscription-portal.service';
import { SubscriptionSelfServiceController } from './subscription-self-service.controller';
import { SubscriptionSelfService } from './subscription-self-service';
import { SubscriptionPurchaseExtension } from './subscription-purchase.extension';
import { SubscriptionController } from './subscription.controller';
import { SubscriptionCustomerActivity } from './subscription.customer-activity';
import { SubscriptionTaxTerms } from './subscription-tax-terms';
import { TaxModule } from '../tax/tax.module';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { SubscriptionSerializer } from './subscription.serializer';
import { SubscriptionService } from './subscription.service';
import { UsageRecordController } from './usage-record.controller';
import { UsageRecord } from './usage-record.entity';
import { UsageRecordRepository } from './usage-record.repository';
import { UsageBatchRepository } from './usage-batch.repository';
import { UsageRecordReader } from './usage-record.reader';
import { UsageRecordSerializer } from './usage-record.serializer';
import { UsageRecordService } from './usage-record.service';

/** Subscriptions, subscription items, usage records, subscription invoices and renewals. */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      Subscription,
      SubscriptionItem,
      UsageRecord,
      SubscriptionInvoice,
    ]),
    BullModule.registerQueue({ name: BILLING_RENEWAL_QUEUE }),
    CheckoutModule,
    CurrencyModule,
    CustomerModule,
    TaxModule,
    // Invoice PDFs: billing plugs in a source and links `urls.invoice_url`.
    InvoiceModule,
    LicensingModule,
    PaymentModule,
    StoreModule,
    WebhooksModule,
  ],
  controllers: [
    SubscriptionController,
    SubscriptionItemController,
    UsageRecordController,
    SubscriptionInvoiceController,
    SubscriptionPortalController,
    SubscriptionCardController,
    SubscriptionSelfServiceController,
  ],
  providers: [
    SubscriptionRepository,
    UsageRecordRepository,
    UsageBatchRepository,
    SubscriptionInvoiceRepository,
    SubscriptionBilling,
    InvoiceCollection,
    ProrationCharges,
    RenewalService,
    RenewalTax,
    SubscriptionService,
    SubscriptionItemService,
    UsageRecordService,
    SubscriptionInvoiceService,
    SubscriptionPortalService,
    PortalCardUpdates,
    SubscriptionSelfService,
    SubscriptionSerializer,
    SubscriptionItemSerializer,
    UsageRecordSerializer,
    SubscriptionInvoiceSerializer,
    SubscriptionItemReader,
    UsageRecordReader,
    registerResources(
      {
        type: 'subscriptions',
        serializer: SubscriptionSerializer,
        reader: SubscriptionService,
      },
      {
        type: 'subscription-items',
        serializer: SubscriptionItemSerializer,
        reader: SubscriptionItemReader,
      },
      {
        type: 'usage-records',
        serializer: UsageRecordSerializer,
        reader: UsageRecordReader,
      },
      {
        type: 'subscription-invoices',
        serializer: SubscriptionInvoiceSerializer,
        reader: SubscriptionInvoiceService,
      },
    ),
    SubscriptionInvoiceSource,
    SubscriptionPurchaseExtension,
    SubscriptionCustomerActivity,
    SubscriptionTaxTerms,
    InvoiceRevenue,
    // License keys of a subscription expire with it.
    { provide: SUBSCRIPTION_END_FOLLOWER, useExisting: LicenseKeyService },
  ],
  exports: [
    RenewalService,
    SubscriptionService,
    SubscriptionInvoiceService,
    BullModule,
  ],
})
export class BillingModule {}
