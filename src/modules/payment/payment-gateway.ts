/** What to charge: a card number typed at checkout, or a saved payment method (renewals). */
export type PaymentSource =
  { cardNumber: string } | { paymentMethodId: string };

export interface ChargeRequest {
  /** Unique per charge (e.g. the order's identifier); a repeat with the same reference must not charge twice. */
  reference: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  source: PaymentSource;
  description: string;
}

export interface PaymentMethod {
  /** Reusable for later charges (subscription renewals). */
  id: string;
  cardBrand: string | null;
  cardLastFour: string | null;
}

export type ChargeResult =
  | { status: 'succeeded'; paymentId: string; method: PaymentMethod }
  | { status: 'declined'; reason: string; method: PaymentMethod | null };

export interface RefundRequest {
  paymentId: string;
  /** Minor units to give back; a charge may be refunded in several parts. */
  amount: number;
  currency: string;
  reference: string;
}

/**
 * A payment processor: a store's own Stripe account when it connected one
 * for the mode (StripePaymentGateway), else the built-in test gateway in
 * test mode, or in live mode a gateway provided under LIVE_PAYMENT_GATEWAY
 * (see PaymentGateways). An invalid
 * request (a malformed card number) throws an AppError 422; a refusal by the
 * processor is a `declined` result, not an exception.
 */
export interface PaymentGateway {
  /**
   * A card number typed at checkout as a reusable payment method, without
   * charging it (what Stripe.js does in the buyer's browser), so that only
   * the method is stored and sent on. Throws 422 for an invalid number.
   */
  paymentMethodOf(cardNumber: string): Promise<PaymentMethod>;
  charge(request: ChargeRequest): Promise<ChargeResult>;
  refund(request: RefundRequest): Promise<{ refundId: string }>;
}

/** Provide a PaymentGateway under this token to take live payments for stores without Stripe. */
export const LIVE_PAYMENT_GATEWAY = Symbol('LIVE_PAYMENT_GATEWAY');
