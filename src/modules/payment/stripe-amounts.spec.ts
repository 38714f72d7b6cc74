import { thrownAppError } from '../../../test/support/app-error';
import {
  fromStripeAmount,
  stripeDigits,
  toStripeAmount,
} from './stripe-amounts';

describe('Stripe amounts', () => {
  it('sends two-decimal currencies as they are', () => {
    expect(toStripeAmount(1999, 'USD')).toBe(1999);
    expect(toStripeAmount(1999, 'eur')).toBe(1999);
    expect(fromStripeAmount(1999, 'USD')).toBe(1999);
  });

  it('sends zero-decimal currencies in whole units', () => {
    expect(stripeDigits('JPY')).toBe(0);
    expect(toStripeAmount(500, 'JPY')).toBe(500);
    expect(toStripeAmount(12000, 'KRW')).toBe(12000);
    expect(fromStripeAmount(500, 'jpy')).toBe(500);
  });

  it('scales ISK, which Stripe counts in hundredths', () => {
    expect(toStripeAmount(1500, 'ISK')).toBe(150000);
    expect(fromStripeAmount(150000, 'ISK')).toBe(1500);
  });

  it('sends three-decimal currencies in thousandths, refusing a last digit Stripe does not take', () => {
    expect(toStripeAmount(1250, 'KWD')).toBe(1250);
    const refused = thrownAppError(() => toStripeAmount(1255, 'KWD'));
    expect(refused.status).toBe(422);
    expect(refused.errors[0].code).toBe('amount_not_representable');
  });
});
