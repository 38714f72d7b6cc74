import { AppError, sourceOf } from '../../common/app-error';
import { Price } from '../catalog/price.entity';
import { BuyerAmount, chosenUnitPrice, unitPriceOf } from './unit-price';

const pwywPrice = (suggestedPrice: number | null) =>
  ({
    category: 'pwyw',
    unitPrice: 500,
    minPrice: 500,
    suggestedPrice,
  }) as Price;
const pwyw = pwywPrice(1500);
const fixed = { category: 'one_time', unitPrice: 2000 } as Price;

const major = (value: string): BuyerAmount => ({ value, unit: 'major' });
const cents = (value: string): BuyerAmount => ({ value, unit: 'cents' });

/** The refusal's pointer and detail, or the price. */
function outcome(
  price: Price,
  amount: BuyerAmount | undefined,
  checkoutPrice: number | null = null,
  currency = 'USD',
) {
  try {
    return chosenUnitPrice(price, checkoutPrice, amount, currency);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.status).toBe(422);
    const [first] = error.errors;
    const source = sourceOf(first) as { pointer: string };
    return { detail: first.detail, pointer: source.pointer };
  }
}

describe('chosenUnitPrice', () => {
  it('charges the suggested price when the buyer names none', () => {
    expect(outcome(pwyw, undefined)).toBe(1500);
    expect(outcome(pwyw, major('  '))).toBe(1500);
    expect(unitPriceOf(pwywPrice(null))).toBe(500);
  });

  it('takes major units from the page and cents from JSON', () => {
    expect(outcome(pwyw, major('12.50'))).toBe(1250);
    expect(outcome(pwyw, cents('1250'))).toBe(1250);
    expect(outcome(pwyw, major('5'))).toBe(500);
    expect(outcome(pwyw, major('700'), null, 'JPY')).toBe(700);
  });

  it('refuses an amount below the minimum, naming it', () => {
    expect(outcome(pwyw, major('4.99'))).toEqual({
      detail: 'The amount must be at least $5.00.',
      pointer: '/amount',
    });
    expect(outcome(pwyw, cents('499'))).toEqual({
      detail: 'The amount must be at least $5.00.',
      pointer: '/custom_price',
    });
  });

  it('refuses what is not an amount', () => {
    expect(outcome(pwyw, major('ten'))).toMatchObject({ pointer: '/amount' });
    expect(outcome(pwyw, major('12.505'))).toMatchObject({
      pointer: '/amount',
    });
    for (const bad of ['12.5', '-600', '1e4', 'x', ''])
      expect(outcome(pwyw, cents(bad))).toMatchObject({
        pointer: '/custom_price',
      });
    expect(outcome(pwyw, cents('9999999999'))).toEqual({
      detail: 'The amount is too large.',
      pointer: '/custom_price',
    });
  });

  it("lets a checkout's custom_price win", () => {
    expect(outcome(pwyw, undefined, 900)).toBe(900);
    expect(outcome(pwyw, major('20'), 900)).toBe(900);
    expect(outcome(pwyw, cents('2000'), 900)).toMatchObject({
      pointer: '/custom_price',
    });
  });

  it('ignores the page field on a fixed price, and refuses custom_price there', () => {
    expect(outcome(fixed, major('1'))).toBe(2000);
    expect(outcome(fixed, cents('100'))).toEqual({
      detail: 'custom_price applies only to pay-what-you-want variants.',
      pointer: '/custom_price',
    });
  });
});
