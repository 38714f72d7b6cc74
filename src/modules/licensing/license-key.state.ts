export const LICENSE_KEY_STATUSES = [
  'inactive',
  'active',
  'expired',
  'disabled',
] as const;

export type LicenseKeyStatus = (typeof LICENSE_KEY_STATUSES)[number];

export const LICENSE_KEY_STATUS_LABELS: Record<LicenseKeyStatus, string> = {
  inactive: 'Inactive',
  active: 'Active',
  expired: 'Expired',
  disabled: 'Disabled',
};

export interface StatusInputs {
  disabled: boolean;
  expiresAt: Date | null;
  instancesCount: number;
}

/**
 * The status is derived, never stored: disabled wins, then expiry (a key
 * expires at the instant `expires_at`), then whether anything is activated.
 * `statusCondition` is the same rule in SQL; keep the two in step.
 */
export function licenseKeyStatus(
  key: StatusInputs,
  now: Date,
): LicenseKeyStatus {
  if (key.disabled) return 'disabled';
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime())
    return 'expired';
  return key.instancesCount > 0 ? 'active' : 'inactive';
}

/** SQL condition for `status = <status>` on alias `alias`, with `:now` bound by the caller. */
export function statusCondition(
  alias: string,
  status: LicenseKeyStatus,
): string {
  const live = `NOT ${alias}.disabled AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > :now)`;
  switch (status) {
    case 'disabled':
      return `${alias}.disabled`;
    case 'expired':
      return `NOT ${alias}.disabled AND ${alias}.expires_at <= :now`;
    case 'active':
      return `${live} AND ${alias}.instances_count > 0`;
    case 'inactive':
      return `${live} AND ${alias}.instances_count = 0`;
  }
}

export type LicenseLengthUnit = 'days' | 'months' | 'years';

/**
 * When a key bought at `from` expires. Months and years are calendar steps
 * in UTC; a day that does not exist in the target month falls on its last
 * day (31 January + 1 month = 28/29 February).
 */
export function licenseExpiry(
  from: Date,
  value: number,
  unit: LicenseLengthUnit,
): Date {
  if (unit === 'days') return new Date(from.getTime() + value * 86_400_000);
  const months = unit === 'months' ? value : value * 12;
  const target = new Date(from.getTime());
  const day = target.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
  ).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target;
}
