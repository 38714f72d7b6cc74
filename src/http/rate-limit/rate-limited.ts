import { AppError } from '../../common/app-error';

/** Every per-minute counter's window; a window opens with its first count. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Whole seconds until a window closes, at least 1 (for Retry-After). */
export function retryAfterSeconds(resetInMs: number): string {
  return String(Math.max(1, Math.ceil(resetInMs / 1000)));
}

/**
 * A 429 with `Retry-After` and a stable `code`: `rate_limited` for a
 * spent budget, `checkout_locked` for a checkout whose purchases are paused.
 */
export function rateLimited(
  detail: string,
  resetInMs: number,
  headers: Record<string, string> = {},
  code: 'rate_limited' | 'checkout_locked' = 'rate_limited',
): AppError {
  return new AppError(
    429,
    {
      detail: `${detail} Retry after the number of seconds in Retry-After.`,
      code,
    },
    { ...headers, 'retry-after': retryAfterSeconds(resetInMs) },
  );
}
