import { PlainJsonError } from '../../common/plain-json-error';

/** The License API's error strings (reference section 7). */
export const LicenseApiMessages = {
  keyNotFound: 'license_key not found',
  instanceNotFound: 'instance_id not found',
  limitReached: 'This license key has reached the activation limit.',
  disabled: 'license_key is disabled.',
  expired: 'license_key is expired.',
} as const;

/**
 * A License API answer other than 200. It carries the whole plain-JSON body
 * (the refusals also report the key and its meta); the exception filter
 * sends it as is.
 */
export class LicenseApiError extends PlainJsonError {
  constructor(status: 400 | 404 | 422, body: Record<string, unknown>) {
    super(status, body);
  }
}
