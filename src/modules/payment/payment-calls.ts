import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { intentOutcome, IntentCheck } from './intent-outcome';
import { PaymentAttempt, PaymentOutcome } from './payment-attempt.entity';
import type { PaymentGateway } from './payment-gateway';
import { PaymentGateways } from './payment-gateways';
import { processorUnavailable, stripeNotConnected } from './payment.errors';

/**
 * The processor calls of payment attempts, made with no transaction open:
 * a charge or refund under the attempt's idempotency key, or the reading
 * (and canceling) of a browser-confirmed intent. Each turns the
 * processor's answer into the attempt's outcome; an outage is a 503 and
 * leaves the attempt as it was. Recording the outcome is PaymentAttempts'.
 */
@Injectable()
export class PaymentCalls {
  private readonly logger = new Logger(PaymentCalls.name);

  constructor(private readonly gateways: PaymentGateways) {}

  /**
   * Charges or refunds a `charge` or `refund` attempt. A refusal is a
   * `declined` (the card) or `failed` (the request) outcome.
   */
  async charge(
    attempt: PaymentAttempt,
    storeGateway?: PaymentGateway,
  ): Promise<PaymentOutcome> {
    try {
      if (attempt.kind === 'refund') {
        const gateway = await this.gateways.forPayment(
          attempt.storeId,
          attempt.testMode,
          attempt.paymentId!,
        );
        const { refundId } = await gateway.refund({
          paymentId: attempt.paymentId!,
          amount: attempt.amount,
          currency: attempt.currency,
          reference: attempt.idempotencyKey,
        });
        return { status: 'succeeded', paymentId: refundId, method: null };
      }
      const gateway =
        storeGateway ??
        (await this.gateways.forStore(attempt.storeId, attempt.testMode));
      const result = await gateway.charge({
        reference: attempt.idempotencyKey,
        amount: attempt.amount,
        currency: attempt.currency,
        source: { paymentMethodId: attempt.paymentMethod! },
        description: attempt.description,
      });
      return result.status === 'succeeded'
        ? {
            status: 'succeeded',
            paymentId: result.paymentId,
            method: result.method,
          }
        : { status: 'declined', reason: result.reason, method: result.method };
    } catch (error) {
      if (error instanceof AppError && error.status < 500)
        return refusedOutcome(error);
      this.logger.error(
        `Payment attempt ${attempt.id} (${attempt.kind}): the processor did not answer: ${(error as Error).message}`,
      );
      throw processorUnavailable();
    }
  }

  /** The intent's outcome, or null while it is open; `expired` cancels an open one. */
  async checkIntent(
    attempt: PaymentAttempt,
    intentId: string,
    expired: string | null,
  ): Promise<PaymentOutcome | null> {
    const stripe = await this.gateways.stripeFor(
      attempt.storeId,
      attempt.testMode,
    );
    if (!stripe) throw stripeNotConnected();
    const { gateway } = stripe;
    const check: IntentCheck = {
      retrieve: () =>
        this.reach(attempt, () => gateway.retrieveIntent(intentId)),
      cancel: () => this.reach(attempt, () => gateway.cancelIntent(intentId)),
    };
    return intentOutcome(attempt, check, expired);
  }

  private reach<T>(attempt: PaymentAttempt, work: () => Promise<T>) {
    return reachStripe(
      this.logger,
      `Payment attempt ${attempt.id} (intent): Stripe did not answer`,
      work,
    );
  }
}

/** A request the processor refused (not an outage), as the attempt's `failed` outcome. */
export function refusedOutcome(error: AppError): PaymentOutcome {
  const [first] = error.errors;
  return {
    status: 'failed',
    reason: first?.detail ?? error.message,
    code: first?.code ?? null,
    http: error.status,
  };
}

/**
 * A Stripe call from outside any transaction: its refusals as they are; an
 * outage is logged (`what` names the call) and answered with a 503.
 */
export async function reachStripe<T>(
  logger: Logger,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) throw error;
    logger.error(`${what}: ${(error as Error).message}`);
    throw processorUnavailable();
  }
}
