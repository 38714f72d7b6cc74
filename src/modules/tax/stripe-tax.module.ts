import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { CheckoutModule } from '../checkout/checkout.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { StripeTaxHooks } from './stripe-tax.hooks';
import { StripeTaxRecords } from './stripe-tax-records';
import { STRIPE_TAX_QUEUE, STRIPE_TAX_SWEEP_QUEUE } from './stripe-tax.queue';
import { TaxModule } from './tax.module';

/**
 * Stripe Tax's records of sales and refunds (tax transactions and
 * reversals): owed in the sale's or refund's transaction, recorded at
 * Stripe by the worker (`StripeTaxProcessor`). Apart from `TaxModule`
 * because it hooks into the purchase, which uses the tax engine.
 */
@Module({
  imports: [
    TaxModule,
    CheckoutModule,
    WebhooksModule,
    BullModule.registerQueue(
      { name: STRIPE_TAX_QUEUE },
      { name: STRIPE_TAX_SWEEP_QUEUE },
    ),
  ],
  providers: [StripeTaxRecords, StripeTaxHooks],
  exports: [StripeTaxRecords, BullModule],
})
export class StripeTaxModule {}
