import { Module } from '@nestjs/common';
import { PaymentGateways } from './payment-gateways';
import { TestPaymentGateway } from './test-payment-gateway';

/** Payment processors behind the PaymentGateway interface (checkout, refunds, renewals). */
@Module({
  providers: [TestPaymentGateway, PaymentGateways],
  exports: [PaymentGateways],
})
export class PaymentModule {}
