import { formatMoney, minorDigits, percentOf, toUsdCents } from './money';

describe('money', () => {
  it('formats by the currency’s own minor digits', () => {
    expect(formatMoney(1999, 'USD')).toBe('$19.99');
    expect(formatMoney(0, 'USD')).toBe('$0.00');
    expect(formatMoney(150000, 'EUR')).toBe('€1,500.00');
    expect(formatMoney(500, 'JPY')).toBe('¥500');
    expect(minorDigits('KWD')).toBe(3);
  });

  it('converts to USD cents', () => {
    expect(toUsdCents(1000, 'USD', 1)).toBe(1000);
    expect(toUsdCents(1000, 'EUR', 1.08)).toBe(1080);
    expect(toUsdCents(500, 'JPY', 0.0066)).toBe(330);
  });

  it('takes percentages to whole cents', () => {
    expect(percentOf(999, 20)).toBe(200);
    expect(percentOf(1000, 12.5)).toBe(125);
  });
});
