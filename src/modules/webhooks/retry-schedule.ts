/**
 * When to try again after attempt number `attemptsInSchedule` (1-based,
 * counted from the start of the current schedule) failed: the configured
 * delay with ±10 % jitter, so receivers that failed together are not all
 * retried in the same instant. Null when the schedule is exhausted.
 */
export function retryDelayMs(
  delaysMs: readonly number[],
  attemptsInSchedule: number,
  random: () => number = Math.random,
): number | null {
  const delay = delaysMs[attemptsInSchedule - 1];
  if (delay === undefined) return null;
  return Math.round(delay * (0.9 + 0.2 * random()));
}
