/**
 * What billing needs from a payment gateway: charge a stored payment method
 * and refund a charge. Implemented over the commerce module's gateway.
 */
export const BILLING_PAYMENTS = Symbol('BILLING_PAYMENTS');

export interface BillingCharge {
  amount: number;
  currency: string;
  testMode: boolean;
  /** The subscription's stored payment-method reference. */
  paymentMethod: string | null;
  description: string;
  /** Repeating a charge with the same key must not charge twice. */
  idempotencyKey: string;
}

export type BillingChargeResult =
  | {
      ok: true;
      reference: string;
      cardBrand: string | null;
      cardLastFour: string | null;
    }
  | { ok: false; reason: string };

export interface BillingPayments {
  charge(request: BillingCharge): Promise<BillingChargeResult>;
  refund(request: {
    reference: string;
    amount: number;
    currency: string;
    testMode: boolean;
  }): Promise<{ ok: true } | { ok: false; reason: string }>;
}
