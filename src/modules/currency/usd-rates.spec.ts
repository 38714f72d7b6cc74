import { roundRate, usdPerUnit, usdRatesFromEuroRates } from './usd-rates';

describe('USD rates', () => {
  it('inverts a per-USD quote and rounds to 10 decimal places', () => {
    expect(usdPerUnit(4)).toBe(0.25);
    expect(usdPerUnit(3)).toBe(0.3333333333);
    expect(roundRate(0.000000123456789)).toBe(0.0000001235);
  });

  it('crosses euro-based quotes through the USD quote', () => {
    expect(usdRatesFromEuroRates({ USD: 1.2, JPY: 150 })).toEqual({
      EUR: 1.2,
      JPY: 0.008,
    });
    expect(usdRatesFromEuroRates({ JPY: 150 })).toBeNull();
  });
});
