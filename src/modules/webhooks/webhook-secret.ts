import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
} from 'node:crypto';

const VERSION = 'v1';

/**
 * Webhook secrets at rest: AES-256-GCM under a key derived from APP_KEY with
 * HKDF-SHA256 (its own `info`, so it never equals the key that hashes API
 * keys). Signing needs the plain secret, so it cannot be hashed; a database
 * dump alone reveals none. Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url).
 * Rotating APP_KEY makes stored secrets unreadable: re-set them with PATCH.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(appKey: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', appKey, '', 'zest webhook secrets v1', 32),
    );
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([
      cipher.update(secret, 'utf8'),
      cipher.final(),
    ]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) =>
        typeof part === 'string' ? part : part.toString('base64url'),
      )
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || ciphertext === undefined) {
      throw new Error('Unknown webhook secret format');
    }
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.key,
      Buffer.from(iv, 'base64url'),
    );
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ciphertext, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
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
