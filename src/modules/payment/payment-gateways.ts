import { Inject, Injectable, Optional } from '@nestjs/common';
import { LIVE_PAYMENT_GATEWAY, PaymentGateway } from './payment-gateway';
import { TestPaymentGateway } from './test-payment-gateway';
import { livePaymentsNotConfigured } from './payment.errors';

/** Picks the processor for a record's mode. */
@Injectable()
export class PaymentGateways {
  constructor(
    private readonly test: TestPaymentGateway,
    @Optional()
    @Inject(LIVE_PAYMENT_GATEWAY)
    private readonly live: PaymentGateway | null,
  ) {}

  /** Throws 422 in live mode when no live gateway is configured. */
  forMode(testMode: boolean): PaymentGateway {
    if (testMode) return this.test;
    if (!this.live) throw livePaymentsNotConfigured();
    return this.live;
  }
}
