/**
 * Stripe's test payment methods and tokens (https://docs.stripe.com/testing),
 * as the double plays them: what the card is, and how a payment with it ends.
 */
export type CardBehaviour =
  /** Succeeds. */
  | 'succeed'
  /**
   * Declined with `card_declined` and this `decline_code`; `onlyPayments`:
   * saving it (a SetupIntent) succeeds, its payments fail.
   */
  | { decline: string; message: string; onlyPayments?: boolean }
  /** 3-D Secure on every payment: on session `requires_action`, off session `authentication_required`. */
  | 'authenticate'
  /**
   * 3-D Secure on session (`requires_action`, a SetupIntent too); once set
   * up, off-session payments go through without it.
   */
  | 'authenticateOnSession';

export interface TestCard {
  brand: string;
  last4: string;
  country: string;
  funding: string;
  behaviour: CardBehaviour;
}

const GENERIC_DECLINE = {
  decline: 'generic_decline',
  message: 'Your card was declined.',
};

/** By magic payment method id (`pm_card_…`) and token (`tok_…`). */
export const TEST_CARDS: Record<string, TestCard> = {
  visa: {
    brand: 'visa',
    last4: '4242',
    country: 'US',
    funding: 'credit',
    behaviour: 'succeed',
  },
  mastercard: {
    brand: 'mastercard',
    last4: '4444',
    country: 'US',
    funding: 'credit',
    behaviour: 'succeed',
  },
  visa_chargeDeclined: {
    brand: 'visa',
    last4: '0002',
    country: 'US',
    funding: 'credit',
    behaviour: GENERIC_DECLINE,
  },
  chargeDeclined: {
    brand: 'visa',
    last4: '0002',
    country: 'US',
    funding: 'credit',
    behaviour: GENERIC_DECLINE,
  },
  chargeDeclinedInsufficientFunds: {
    brand: 'visa',
    last4: '9995',
    country: 'US',
    funding: 'credit',
    behaviour: {
      decline: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    },
  },
  chargeCustomerFail: {
    brand: 'visa',
    last4: '0341',
    country: 'US',
    funding: 'credit',
    behaviour: { ...GENERIC_DECLINE, onlyPayments: true },
  },
  authenticationRequired: {
    brand: 'visa',
    last4: '3184',
    country: 'US',
    funding: 'credit',
    behaviour: 'authenticate',
  },
  authenticationRequiredOnSetup: {
    brand: 'visa',
    last4: '3155',
    country: 'US',
    funding: 'credit',
    behaviour: 'authenticateOnSession',
  },
  threeDSecure2Required: {
    brand: 'visa',
    last4: '3220',
    country: 'US',
    funding: 'credit',
    behaviour: 'authenticate',
  },
};

/** The test card behind `pm_card_<name>` or `tok_<name>`, if it is one. */
export function testCardOf(id: string): TestCard | null {
  const match = /^(?:pm_card_|tok_)(\w+)$/.exec(id);
  return match ? (TEST_CARDS[match[1]] ?? null) : null;
}

/**
 * Stripe's test card numbers as typed into the Payment Element
 * (https://docs.stripe.com/testing#cards), by the card they play.
 */
const TEST_NUMBERS: Record<string, string> = {
  '4242424242424242': 'visa',
  '5555555555554444': 'mastercard',
  '4000000000000002': 'chargeDeclined',
  '4000000000009995': 'chargeDeclinedInsufficientFunds',
  '4000000000000341': 'chargeCustomerFail',
  '4000002760003184': 'authenticationRequired',
  '4000002500003155': 'authenticationRequiredOnSetup',
  '4000000000003220': 'threeDSecure2Required',
};

/** The test card behind a typed number, if it is one of Stripe's. */
export function cardOfNumber(number: string): TestCard | null {
  const name = TEST_NUMBERS[number];
  return name ? TEST_CARDS[name] : null;
}
