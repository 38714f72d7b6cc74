import { createHmac } from 'node:crypto';
import { SealedBox } from '../../common/sealed-box';

/**
 * Webhook secrets at rest (see SealedBox). Signing needs the plain secret,
 * so it cannot be hashed. Rotating APP_KEY makes stored secrets unreadable:
 * re-set them with PATCH.
 */
export class SecretBox extends SealedBox {
  constructor(appKey: string) {
    super(appKey, 'zest webhook secrets v1');
  }
}

/** Lemon Squeezy's `X-Signature`: lowercase hex HMAC-SHA256 of the exact body, keyed with the secret. */
export function lemonSqueezySignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Standard Webhooks `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 * The key is the bytes of `key`: for a `whsec_<base64>` secret that is the
 * decoded base64; a merchant's Lemon Squeezy-style secret (any 6–40
 * characters) is used as its UTF-8 bytes, the same key material as
 * X-Signature. A receiver using the `standardwebhooks` library passes the
 * secret's base64 (`Buffer.from(secret).toString('base64')`).
 */
export function standardWebhookSignature(
  key: string | Buffer,
  id: string,
  timestamp: number,
  body: string,
): string {
  const keyBytes =
    typeof key === 'string' && key.startsWith('whsec_')
      ? Buffer.from(key.slice('whsec_'.length), 'base64')
      : key;
  const digest = createHmac('sha256', keyBytes)
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${digest}`;
}
