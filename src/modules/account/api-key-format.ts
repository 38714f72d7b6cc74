import { createHmac, randomBytes } from 'node:crypto';
import { ApiKeyMode } from './api-key.entity';

const KEY_PATTERN = /^zest_(test|live)_[A-Za-z0-9_-]{43}$/;
const DISPLAY_PREFIX_LENGTH = 14;

/** A new key: 256 random bits behind a mode prefix, like `zest_test_…`. */
export function generateApiKey(mode: ApiKeyMode): string {
  return `zest_${mode}_${randomBytes(32).toString('base64url')}`;
}

/** Cheap shape check, so a malformed key costs no database query. */
export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** A random 256-bit key needs no slow KDF; a keyed hash keeps a dump useless. */
export function hashApiKey(key: string, appKey: string): string {
  return createHmac('sha256', appKey).update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
