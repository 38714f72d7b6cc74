import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Who may read `/metrics`: nobody when METRICS_TOKEN is unset (the route
 * answers 404, as if it did not exist), otherwise a request that carries
 * `Authorization: Bearer <METRICS_TOKEN>`. Compared as SHA-256 digests in
 * constant time, so neither the length nor a prefix of the token leaks.
 */
export function metricsAccess(
  token: string | null,
  authorization: string | string[] | undefined,
): 'allowed' | 'disabled' | 'unauthorized' {
  if (token === null) return 'disabled';
  const given =
    typeof authorization === 'string'
      ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]
      : undefined;
  if (given === undefined) return 'unauthorized';
  return timingSafeEqual(digest(given), digest(token))
    ? 'allowed'
    : 'unauthorized';
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
