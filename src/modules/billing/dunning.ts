/**
 * Dunning (DUNNING_SCHEDULE): a renewal whose charge failed is retried at
 * fixed offsets from its renewal date (default 1, 3 and 7 days after), one
 * retry per offset; when the last retry fails too, the subscription is
 * `unpaid`.
 *
 * When the renewal that started at `periodStart` is charged again after
 * its `failedCharges`-th failure (1 for the renewal itself); null when no
 * retry is left.
 */
export function nextRetryAt(
  periodStart: Date,
  failedCharges: number,
  scheduleMs: readonly number[],
): Date | null {
  const offset = scheduleMs[failedCharges - 1];
  return offset === undefined ? null : new Date(periodStart.getTime() + offset);
}

/** The processor key of the renewal's charge (`retry` 0) or of its n-th retry. */
export function renewalChargeKey(
  subscriptionId: number,
  periodStart: Date,
  retry: number,
): string {
  return `subscription-${subscriptionId}-renewal-${periodStart.getTime()}-${retry}`;
}
