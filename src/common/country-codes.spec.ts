import { COUNTRY_CODES, isCountryCode } from './country-codes';

describe('isCountryCode', () => {
  it('holds exactly the 249 assigned ISO 3166-1 alpha-2 codes', () => {
    expect(COUNTRY_CODES.size).toBe(249);
    for (const code of COUNTRY_CODES) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it('accepts assigned codes', () => {
    for (const code of ['US', 'GB', 'DE', 'FR', 'CA', 'NO', 'AX', 'SS', 'BQ'])
      expect(isCountryCode(code)).toBe(true);
  });

  it('refuses user-assigned, reserved and withdrawn codes that Intl names', () => {
    for (const code of ['ZZ', 'XK', 'XX', 'EU', 'UN', 'QO', 'AA', 'UK', 'AN'])
      expect(isCountryCode(code)).toBe(false);
  });

  it('refuses other shapes', () => {
    for (const code of ['', 'us', 'Us', 'USA', 'U', ' US', 'US '])
      expect(isCountryCode(code)).toBe(false);
  });

  it('agrees with Intl on every assigned code', () => {
    const names = new Intl.DisplayNames(['en'], {
      type: 'region',
      fallback: 'none',
    });
    for (const code of COUNTRY_CODES) expect(names.of(code)).toBeDefined();
  });
});
