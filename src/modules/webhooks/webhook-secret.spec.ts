import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  lemonSqueezySignature,
  SecretBox,
  standardWebhookSignature,
} from './webhook-secret';

describe('standardWebhookSignature', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    expect(
      standardWebhookSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('keys a plain secret with its UTF-8 bytes', () => {
    const expected = createHmac('sha256', Buffer.from('my secret', 'utf8'))
      .update('msg_1.1700000000.{}')
      .digest('base64');
    expect(
      standardWebhookSignature('my secret', 'msg_1', 1700000000, '{}'),
    ).toBe(`v1,${expected}`);
  });

  it('changes when any signed byte changes', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 6, maxLength: 40 }),
        fc.string(),
        fc.integer({ min: 0 }),
        fc.string({ minLength: 1 }),
        fc.nat(),
        (secret, body, timestamp, id, position) => {
          const original = standardWebhookSignature(
            secret,
            id,
            timestamp,
            body,
          );
          const bytes = Buffer.from(body);
          if (bytes.length === 0) return;
          bytes[position % bytes.length] ^= 1;
          const tampered = standardWebhookSignature(
            secret,
            id,
            timestamp,
            bytes.toString('latin1'),
          );
          expect(tampered).not.toBe(original);
          expect(
            standardWebhookSignature(secret, id, timestamp + 1, body),
          ).not.toBe(original);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('lemonSqueezySignature', () => {
  it('is the lowercase hex HMAC-SHA256 of the exact body', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 6, maxLength: 40 }),
        fc.string(),
        (secret, body) => {
          const signature = lemonSqueezySignature(secret, body);
          expect(signature).toMatch(/^[0-9a-f]{64}$/);
          expect(signature).toBe(
            createHmac('sha256', secret).update(body).digest('hex'),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('SecretBox', () => {
  const box = new SecretBox('k'.repeat(40));

  it('round-trips and never stores the plain secret', () => {
    const sealed = box.seal('s3cret-value');
    expect(sealed).not.toContain('s3cret');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(box.open(sealed)).toBe('s3cret-value');
    // A fresh IV each time.
    expect(box.seal('s3cret-value')).not.toBe(sealed);
  });

  it('refuses a tampered value and another APP_KEY', () => {
    const sealed = box.seal('s3cret-value');
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[3], 'base64url');
    ciphertext[0] ^= 1;
    parts[3] = ciphertext.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() =>
      new SecretBox(randomBytes(32).toString('hex')).open(sealed),
    ).toThrow();
  });
});
