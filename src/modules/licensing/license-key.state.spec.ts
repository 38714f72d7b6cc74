import { licenseExpiry, licenseKeyStatus } from './license-key.state';

const at = (iso: string) => new Date(iso);

describe('licenseKeyStatus', () => {
  const now = at('2026-05-01T12:00:00.000Z');
  const key = { disabled: false, expiresAt: null, instancesCount: 0 };

  it('is inactive without instances and active with one', () => {
    expect(licenseKeyStatus(key, now)).toBe('inactive');
    expect(licenseKeyStatus({ ...key, instancesCount: 1 }, now)).toBe('active');
  });

  it('expires at the instant of expires_at, not after', () => {
    const expiring = { ...key, instancesCount: 2 };
    expect(
      licenseKeyStatus(
        { ...expiring, expiresAt: at('2026-05-01T12:00:00.001Z') },
        now,
      ),
    ).toBe('active');
    expect(licenseKeyStatus({ ...expiring, expiresAt: now }, now)).toBe(
      'expired',
    );
  });

  it('is disabled above everything else', () => {
    expect(
      licenseKeyStatus(
        {
          disabled: true,
          expiresAt: at('2020-01-01T00:00:00Z'),
          instancesCount: 3,
        },
        now,
      ),
    ).toBe('disabled');
  });
});

describe('licenseExpiry', () => {
  it('adds days as 24-hour steps', () => {
    expect(licenseExpiry(at('2026-03-28T10:00:00Z'), 3, 'days')).toEqual(
      at('2026-03-31T10:00:00Z'),
    );
  });

  it('adds calendar months and years, clamping to the month’s last day', () => {
    expect(licenseExpiry(at('2026-01-31T08:30:00Z'), 1, 'months')).toEqual(
      at('2026-02-28T08:30:00Z'),
    );
    expect(licenseExpiry(at('2028-01-31T08:30:00Z'), 1, 'months')).toEqual(
      at('2028-02-29T08:30:00Z'),
    );
    expect(licenseExpiry(at('2026-11-15T00:00:00Z'), 3, 'months')).toEqual(
      at('2027-02-15T00:00:00Z'),
    );
    expect(licenseExpiry(at('2028-02-29T23:59:59Z'), 1, 'years')).toEqual(
      at('2029-02-28T23:59:59Z'),
    );
  });
});
