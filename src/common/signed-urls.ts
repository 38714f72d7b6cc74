import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed URLs (checkout, receipt, invoice, customer portal): an HMAC-SHA256
 * with APP_KEY over the path and the query, carried in a `signature` query
 * parameter. An optional `expires` (unix seconds) is part of the signed data,
 * so it cannot be extended. The host is not signed: the same link works
 * through PUBLIC_BASE_URL, CHECKOUT_BASE_URL or a proxy in front of them.
 *
 * The signed string is canonical: the path as sent, then the query pairs
 * (percent-encoded) sorted by name and then value. Clients and proxies that
 * reorder parameters therefore keep the link valid, while adding, removing or
 * changing any parameter breaks it.
 */

export const SIGNATURE_PARAM = 'signature';
export const EXPIRES_PARAM = 'expires';

export type SignatureCheck = 'valid' | 'invalid' | 'expired';

export interface SignOptions {
  /** The link stops working after this instant (rounded up to the second). */
  expiresAt?: Date;
}

// Any valid absolute base works: only path and query are read from the parse.
const PARSE_BASE = 'http://signed.invalid';
// Separates these MACs from every other use of APP_KEY (API-key hashes).
const DOMAIN = 'zest:signed-url:v1\n';
const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

interface SplitUrl {
  path: string;
  pairs: [string, string][];
}

function split(pathAndQuery: string): SplitUrl | null {
  if (!pathAndQuery.startsWith('/') || pathAndQuery.startsWith('//')) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(pathAndQuery, PARSE_BASE);
  } catch {
    return null;
  }
  return { path: url.pathname, pairs: [...url.searchParams.entries()] };
}

function canonical(path: string, pairs: [string, string][]): string {
  const encoded = pairs
    .map(([name, value]) => [
      encodeURIComponent(name),
      encodeURIComponent(value),
    ])
    .sort(([a, x], [b, y]) =>
      a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0,
    )
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return `${path}?${encoded}`;
}

function mac(key: string, path: string, pairs: [string, string][]): string {
  return createHmac('sha256', key)
    .update(DOMAIN + canonical(path, pairs))
    .digest('hex');
}

/**
 * `pathAndQuery` (e.g. `/portal/customers/5?tab=orders`) signed with `key`,
 * returned as `path?query&expires=…&signature=…` relative to the server.
 * A `signature` or `expires` already in the query is replaced.
 */
export function signPath(
  key: string,
  pathAndQuery: string,
  options: SignOptions = {},
): string {
  const parts = split(pathAndQuery);
  if (!parts) throw new Error(`Cannot sign "${pathAndQuery}": not a path`);
  const pairs = parts.pairs.filter(
    ([name]) => name !== SIGNATURE_PARAM && name !== EXPIRES_PARAM,
  );
  if (options.expiresAt) {
    const seconds = Math.ceil(options.expiresAt.getTime() / 1000);
    pairs.push([EXPIRES_PARAM, String(seconds)]);
  }
  const signature = mac(key, parts.path, pairs);
  const query = new URLSearchParams([...pairs, [SIGNATURE_PARAM, signature]]);
  return `${parts.path}?${query.toString()}`;
}

/** An absolute signed URL: `baseUrl` (scheme, host, optional path prefix) + the signed path. */
export function signUrl(
  key: string,
  baseUrl: string,
  pathAndQuery: string,
  options: SignOptions = {},
): string {
  return `${baseUrl.replace(/\/+$/, '')}${signPath(key, pathAndQuery, options)}`;
}

/**
 * Checks a request's path and query (as the server received them). The
 * signature is checked before the expiry, so an edited `expires` is
 * `invalid`, not `expired`; comparison is constant-time.
 */
export function verifyPath(
  key: string,
  pathAndQuery: string,
  now: Date,
): SignatureCheck {
  const parts = split(pathAndQuery);
  if (!parts) return 'invalid';
  const signatures = parts.pairs.filter(([name]) => name === SIGNATURE_PARAM);
  const expires = parts.pairs.filter(([name]) => name === EXPIRES_PARAM);
  if (signatures.length !== 1 || expires.length > 1) return 'invalid';
  const given = signatures[0][1];
  if (!SIGNATURE_PATTERN.test(given)) return 'invalid';
  const signed = parts.pairs.filter(([name]) => name !== SIGNATURE_PARAM);
  const expected = mac(key, parts.path, signed);
  if (
    !timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'))
  ) {
    return 'invalid';
  }
  if (expires.length === 1) {
    const raw = expires[0][1];
    if (!/^\d{1,12}$/.test(raw)) return 'invalid';
    if (now.getTime() >= Number(raw) * 1000) return 'expired';
  }
  return 'valid';
}
