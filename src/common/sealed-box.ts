import {
  createCipheriv,
  createDecipheriv,
  hkdfSync,
  randomBytes,
} from 'node:crypto';

const VERSION = 'v1';

/**
 * Secrets the server must read back (webhook signing secrets, payment
 * processor keys) at rest: AES-256-GCM under a key derived from APP_KEY
 * with HKDF-SHA256. Each use passes its own `info`, so no two uses share a
 * key, and none equals the key that hashes API keys; a database dump alone
 * reveals none. Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url); the
 * version names the scheme, so a later one can read older values. Rotating
 * APP_KEY makes stored secrets unreadable: they must be set again.
 */
export class SealedBox {
  private readonly key: Buffer;

  constructor(appKey: string, info: string) {
    this.key = Buffer.from(hkdfSync('sha256', appKey, '', info, 32));
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
      throw new Error('Unknown sealed secret format');
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
