import { metricsAccess } from './metrics-access';

describe('metricsAccess', () => {
  const token = 'scrape-0123456789abcdef';

  it('is off when no token is configured, whatever the request carries', () => {
    expect(metricsAccess(null, undefined)).toBe('disabled');
    expect(metricsAccess(null, `Bearer ${token}`)).toBe('disabled');
  });

  it('allows exactly the configured bearer token', () => {
    expect(metricsAccess(token, `Bearer ${token}`)).toBe('allowed');
    expect(metricsAccess(token, `bearer ${token}`)).toBe('allowed');
  });

  it('refuses a missing, malformed, shortened, lengthened or repeated token', () => {
    for (const header of [
      undefined,
      '',
      token,
      `Basic ${token}`,
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}x`,
      `Bearer ${token} ${token}`,
      [`Bearer ${token}`, `Bearer ${token}`],
    ]) {
      expect(metricsAccess(token, header)).toBe('unauthorized');
    }
  });
});
