import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptRepository } from './payment-attempt.repository';
import { PaymentAttempts } from './payment-attempts';
import { PaymentCalls } from './payment-calls';
import { PaymentGateways } from './payment-gateways';
import { ProcessorRefunds } from './processor-refunds';
import { PAYMENT_SWEEP_QUEUE } from './payment-sweep.queue';
import { StripeCheckoutIntents } from './stripe-checkout-intents';
import { StripeCredentials } from './stripe-credentials.entity';
import { StripeCredentialsRepository } from './stripe-credentials.repository';
import { StripeCredentialsService } from './stripe-credentials.service';
import { StripeCustomer } from './stripe-customer.entity';
import { RefundReversals } from './refund-reversals';
import { StripeCustomerRepository } from './stripe-customer.repository';
import { TestPaymentGateway } from './test-payment-gateway';

/**
 * Payment processors behind the PaymentGateway interface (checkout, refunds,
 * renewals), the stored attempts that keep their calls out of database
 * transactions, and each store's own (sealed) Stripe credentials.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      PaymentAttempt,
      StripeCredentials,
      StripeCustomer,
    ]),
    BullModule.registerQueue({ name: PAYMENT_SWEEP_QUEUE }),
  ],
  providers: [
    TestPaymentGateway,
    PaymentGateways,
    PaymentAttemptRepository,
    PaymentAttempts,
    PaymentCalls,
    ProcessorRefunds,
    StripeCredentialsRepository,
    StripeCredentialsService,
    StripeCustomerRepository,
    StripeCheckoutIntents,
    RefundReversals,
  ],
  exports: [
    RefundReversals,
    StripeCheckoutIntents,
    PaymentGateways,
    PaymentAttempts,
    ProcessorRefunds,
    StripeCredentialsService,
    BullModule,
  ],
})
export class PaymentModule {}
