import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ChargeRequest,
  ChargeResult,
  PaymentGateway,
  PaymentMethod,
  RefundRequest,
} from './payment-gateway';
import { invalidCardNumber } from './payment.errors';

export const TEST_CARD_SUCCESS = '4242424242424242';
export const TEST_CARD_DECLINED = '4000000000000002';

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function brandOf(digits: string): string | null {
  if (digits.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^6(011|5)/.test(digits)) return 'discover';
  if (digits.startsWith('35')) return 'jcb';
  return null;
}

/** Digits only; spaces and dashes as people type them are allowed. */
export function normalizeCardNumber(raw: string): string {
  const digits = raw.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) {
    throw invalidCardNumber();
  }
  return digits;
}

const DECLINED_METHOD = 'pm_test_declined';

function methodOfCard(digits: string): PaymentMethod {
  const lastFour = digits.slice(-4);
  const brand = brandOf(digits);
  return {
    id:
      digits === TEST_CARD_DECLINED
        ? DECLINED_METHOD
        : `pm_test_${brand ?? 'card'}_${lastFour}`,
    cardBrand: brand,
    cardLastFour: lastFour,
  };
}

/**
 * Test mode's processor, deterministic like the usual sandboxes: card
 * 4000 0000 0000 0002 is declined, every other valid card number succeeds.
 * Saved methods are `pm_test_<brand>_<last4>`; the declining card's method
 * keeps declining, so renewals can be tested failing too.
 */
@Injectable()
export class TestPaymentGateway implements PaymentGateway {
  paymentMethodOf(cardNumber: string): Promise<PaymentMethod> {
    return Promise.resolve(methodOfCard(normalizeCardNumber(cardNumber)));
  }

  charge(request: ChargeRequest): Promise<ChargeResult> {
    let method: PaymentMethod;
    if ('cardNumber' in request.source) {
      method = methodOfCard(normalizeCardNumber(request.source.cardNumber));
    } else {
      const match = /^pm_test_([a-z]+)_(\d{4})$/.exec(
        request.source.paymentMethodId,
      );
      method = {
        id: request.source.paymentMethodId,
        cardBrand: match && match[1] !== 'card' ? match[1] : null,
        cardLastFour: match ? match[2] : null,
      };
    }
    if (method.id === DECLINED_METHOD) {
      return Promise.resolve({
        status: 'declined',
        reason: 'The card was declined.',
        method,
      });
    }
    // Derived from the reference, so a retried charge is the same charge.
    const paymentId = `pay_test_${createHash('sha256').update(request.reference).digest('hex').slice(0, 24)}`;
    return Promise.resolve({ status: 'succeeded', paymentId, method });
  }

  refund(request: RefundRequest): Promise<{ refundId: string }> {
    const refundId = `re_test_${createHash('sha256').update(`${request.paymentId}:${request.reference}`).digest('hex').slice(0, 24)}`;
    return Promise.resolve({ refundId });
  }
}
