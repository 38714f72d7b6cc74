import { createHmac, timingSafeEqual } from 'node:crypto';

/** Download links live this long (reference: file `download_url` expires after 1 hour). */
export const DOWNLOAD_TTL_SECONDS = 3600;

function signature(appKey: string, identifier: string, expires: number) {
  return createHmac('sha256', appKey)
    .update(`/downloads/${identifier}?expires=${expires}`)
    .digest('hex');
}

/** `{base}/downloads/{identifier}?expires=…&signature=…`: HMAC-SHA256 of path and query with APP_KEY. */
export function signedDownloadUrl(
  baseUrl: string,
  appKey: string,
  identifier: string,
  now: Date,
): string {
  const expires = Math.floor(now.getTime() / 1000) + DOWNLOAD_TTL_SECONDS;
  return `${baseUrl}/downloads/${identifier}?expires=${expires}&signature=${signature(appKey, identifier, expires)}`;
}

/** True when the signature matches and the link has not expired. */
export function verifyDownload(
  appKey: string,
  identifier: string,
  expires: unknown,
  given: unknown,
  now: Date,
): boolean {
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = Buffer.from(
    signature(appKey, identifier, Number(expires)),
    'hex',
  );
  return (
    timingSafeEqual(expected, Buffer.from(given, 'hex')) &&
    Number(expires) * 1000 > now.getTime()
  );
}
