import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { CurrencyModule } from '../currency/currency.module';
import { CustomerModule } from '../customer/customer.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { DiscountModule } from '../discount/discount.module';
import { PaymentModule } from '../payment/payment.module';
import { TaxModule } from '../tax/tax.module';
import { Store } from '../store/store.entity';
import { CheckoutController } from './checkout.controller';
import { Checkout } from './checkout.entity';
import { CheckoutRepository } from './checkout.repository';
import { CheckoutSerializer } from './checkout.serializer';
import { CheckoutService } from './checkout.service';
import { HostedCheckoutController } from './hosted-checkout.controller';
import { HostedCheckoutService } from './hosted-checkout.service';
import { ReceiptPageService } from './receipt-page.service';
import { PurchaseExtensions } from './purchase-extension';
import { PurchaseService } from './purchase.service';
import { PurchaseQuotes } from './purchase-quotes';
import { PurchaseSettlement } from './purchase-settlement';
import { HostedPaymentService } from './hosted-payment.service';
import { SubmissionTerms } from './submission-terms';
import { SubmissionTokens } from './submission-tokens';
import { registerResources } from '../../http/json-api/resource';

/**
 * Checkouts, the hosted checkout page and the purchase. Billing and
 * licensing import this module to register their PurchaseExtension.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Checkout, Store]),
    CatalogModule,
    CurrencyModule,
    CustomerModule,
    DeliveryModule,
    DiscountModule,
    PaymentModule,
    TaxModule,
  ],
  controllers: [CheckoutController, HostedCheckoutController],
  providers: [
    CheckoutRepository,
    CheckoutService,
    CheckoutSerializer,
    PurchaseQuotes,
    PurchaseService,
    PurchaseSettlement,
    HostedPaymentService,
    SubmissionTokens,
    SubmissionTerms,
    PurchaseExtensions,
    HostedCheckoutService,
    ReceiptPageService,
    registerResources({
      type: 'checkouts',
      serializer: CheckoutSerializer,
      reader: CheckoutService,
      // UUIDs: the service finds nothing for anything else.
      parseId: (raw: string) => raw,
    }),
  ],
  exports: [PurchaseExtensions, PurchaseService],
})
export class CheckoutModule {}
