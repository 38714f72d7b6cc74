import { thrownAppError } from '../../../test/support/app-error';
import {
  normalizeCardNumber,
  TEST_CARD_DECLINED,
  TEST_CARD_SUCCESS,
  TestPaymentGateway,
} from './test-payment-gateway';

describe('TestPaymentGateway', () => {
  const gateway = new TestPaymentGateway();
  const charge = (
    source: { cardNumber: string } | { paymentMethodId: string },
  ) =>
    gateway.charge({
      reference: 'order-1',
      amount: 1000,
      currency: 'USD',
      source,
      description: 'test',
    });

  it('charges 4242… and declines 4000 0000 0000 0002', async () => {
    const ok = await charge({ cardNumber: TEST_CARD_SUCCESS });
    expect(ok.status).toBe('succeeded');
    expect(ok.method).toEqual({
      id: 'pm_test_visa_4242',
      cardBrand: 'visa',
      cardLastFour: '4242',
    });
    const again = await charge({ cardNumber: '4242 4242 4242 4242' });
    expect(again).toEqual(ok);
    expect((await charge({ cardNumber: TEST_CARD_DECLINED })).status).toBe(
      'declined',
    );
    expect(
      (await charge({ paymentMethodId: 'pm_test_visa_4242' })).status,
    ).toBe('succeeded');
    expect((await charge({ paymentMethodId: 'pm_test_declined' })).status).toBe(
      'declined',
    );
  });

  it('refuses malformed numbers with 422', () => {
    for (const bad of ['', '1234', '4242424242424241', 'abcd']) {
      expect(thrownAppError(() => normalizeCardNumber(bad)).status).toBe(422);
    }
  });
});
