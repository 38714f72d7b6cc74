import {
  formatMoney,
  minorDigits,
  parseMajorUnits,
  toMajorUnits,
} from './format';

describe('money', () => {
  it('formats by the currency’s own minor digits', () => {
    expect(formatMoney(1999, 'USD')).toBe('$19.99');
    expect(formatMoney(0, 'USD')).toBe('$0.00');
    expect(formatMoney(150000, 'EUR')).toBe('€1,500.00');
    expect(formatMoney(500, 'JPY')).toBe('¥500');
    expect(minorDigits('KWD')).toBe(3);
  });

  it('writes amounts in major units, as a buyer types them', () => {
    expect(toMajorUnits(1250, 'USD')).toBe('12.50');
    expect(toMajorUnits(0, 'USD')).toBe('0.00');
    expect(toMajorUnits(500, 'JPY')).toBe('500');
    expect(toMajorUnits(1234, 'KWD')).toBe('1.234');
  });

  it('reads amounts in major units by the currency’s minor digits', () => {
    expect(parseMajorUnits('12.50', 'USD')).toBe(1250);
    expect(parseMajorUnits(' 12.5 ', 'USD')).toBe(1250);
    expect(parseMajorUnits('12', 'USD')).toBe(1200);
    expect(parseMajorUnits('12.', 'USD')).toBe(1200);
    expect(parseMajorUnits('0.07', 'USD')).toBe(7);
    expect(parseMajorUnits('.5', 'USD')).toBe(50);
    expect(parseMajorUnits('500', 'JPY')).toBe(500);
    expect(parseMajorUnits('1.234', 'KWD')).toBe(1234);
    for (const bad of ['', '.', '12.505', '-1', '1e3', '1,000', '12,50', 'ten'])
      expect(parseMajorUnits(bad, 'USD')).toBeNull();
    expect(parseMajorUnits('500.5', 'JPY')).toBeNull();
  });
});
