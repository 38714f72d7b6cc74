import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptRepository } from './payment-attempt.repository';
import { PaymentAttempts } from './payment-attempts';
import { PaymentGateways } from './payment-gateways';
import { PAYMENT_SWEEP_QUEUE } from './payment-sweep.queue';
import { TestPaymentGateway } from './test-payment-gateway';

/**
 * Payment processors behind the PaymentGateway interface (checkout, refunds,
 * renewals), and the stored attempts that keep their calls out of database
 * transactions.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([PaymentAttempt]),
    BullModule.registerQueue({ name: PAYMENT_SWEEP_QUEUE }),
  ],
  providers: [
    TestPaymentGateway,
    PaymentGateways,
    PaymentAttemptRepository,
    PaymentAttempts,
  ],
  exports: [PaymentGateways, PaymentAttempts, BullModule],
})
export class PaymentModule {}
