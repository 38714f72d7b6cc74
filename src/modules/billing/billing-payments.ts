import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { PaymentGateways } from '../payment/payment-gateways';

export interface BillingCharge {
  /** The transaction the charge is made in (renewals still charge inside theirs). */
  manager: EntityManager;
  storeId: number;
  amount: number;
  currency: string;
  testMode: boolean;
  /** The subscription's stored payment method, or a card number typed on the portal page. */
  source: { paymentMethodId: string | null } | { cardNumber: string };
  description: string;
  /** Repeating a charge with the same reference must not charge twice. */
  reference: string;
}

export type BillingChargeResult =
  | {
      ok: true;
      paymentId: string;
      paymentMethod: string;
      cardBrand: string | null;
      cardLastFour: string | null;
    }
  | { ok: false; reason: string };

/**
 * Billing's use of the payment gateways: charges of stored payment methods
 * whose refusals are results (a renewal goes past_due), not exceptions.
 */
@Injectable()
export class BillingPayments {
  constructor(private readonly gateways: PaymentGateways) {}

  async charge(request: BillingCharge): Promise<BillingChargeResult> {
    let gateway;
    try {
      gateway = await this.gateways.forStore(
        request.storeId,
        request.testMode,
        request.manager,
      );
    } catch (error) {
      if (error instanceof AppError)
        return { ok: false, reason: error.message };
      throw error;
    }
    const source = request.source;
    if ('paymentMethodId' in source && !source.paymentMethodId) {
      return { ok: false, reason: 'No payment method is on file.' };
    }
    let result;
    try {
      result = await gateway.charge({
        reference: request.reference,
        amount: request.amount,
        currency: request.currency,
        source:
          'cardNumber' in source
            ? { cardNumber: source.cardNumber }
            : { paymentMethodId: source.paymentMethodId! },
        description: request.description,
      });
    } catch (error) {
      // The processor refusing a stored method's charge (say, a method it
      // no longer knows) fails the payment like a decline; a typed card's
      // refusal (an invalid number) stays the caller's 422.
      if (
        error instanceof AppError &&
        error.status < 500 &&
        'paymentMethodId' in source
      )
        return { ok: false, reason: error.message };
      throw error;
    }
    if (result.status === 'declined')
      return { ok: false, reason: result.reason };
    return {
      ok: true,
      paymentId: result.paymentId,
      paymentMethod: result.method.id,
      cardBrand: result.method.cardBrand,
      cardLastFour: result.method.cardLastFour,
    };
  }
}
