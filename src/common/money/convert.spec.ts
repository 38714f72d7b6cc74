import { convertMinorUnits, crossRate } from './convert';

describe('crossRate', () => {
  it('divides the USD rates to ten places, rounded once', () => {
    // The ECB's 1.1700 USD and 0.8650 GBP per euro, as the table keeps them.
    expect(crossRate('1.3526011561', '1.17')).toBe('1.1560693642');
    expect(crossRate('1.17', '1.17')).toBe('1.0000000000');
    expect(crossRate(1, '1.17')).toBe('0.8547008547');
    expect(crossRate('0.0066', '1.08', 4)).toBe('0.0061');
    expect(crossRate(2, 1, 0)).toBe('2');
  });

  it('refuses a rate that is not positive', () => {
    expect(() => crossRate(0, 1)).toThrow(RangeError);
  });
});

describe('convertMinorUnits', () => {
  it('converts by both currencies’ minor digits', () => {
    expect(convertMinorUnits(1000, 'EUR', 'EUR', '0.5')).toBe(1000);
    expect(convertMinorUnits(1000, 'USD', 'EUR', '0.8547008547')).toBe(855);
    expect(convertMinorUnits(50000, 'JPY', 'EUR', '0.0058')).toBe(29000);
    expect(convertMinorUnits(1234, 'KWD', 'EUR', '2.75')).toBe(339);
    // 5 cents at 1.1 is 5.5 cents: halves away from zero, both signs.
    expect(convertMinorUnits(5, 'GBP', 'EUR', '1.1')).toBe(6);
    expect(convertMinorUnits(-5, 'GBP', 'EUR', '1.1')).toBe(-6);
    expect(convertMinorUnits(0, 'GBP', 'EUR', '1.1')).toBe(0);
  });
});
