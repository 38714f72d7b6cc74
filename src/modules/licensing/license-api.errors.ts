import { genericCode } from '../../common/app-error';
import { PlainJsonError } from '../../common/plain-json-error';

/** The License API's error strings (reference section 7). */
export const LicenseApiMessages = {
  keyNotFound: 'license_key not found',
  instanceNotFound: 'instance_id not found',
  limitReached: 'This license key has reached the activation limit.',
  disabled: 'license_key is disabled.',
  expired: 'license_key is expired.',
} as const;

/** The code of each refusal above, for the logs (the body has no `code`). */
export const LicenseApiCodes: Record<keyof typeof LicenseApiMessages, string> =
  {
    keyNotFound: 'license_key_not_found',
    instanceNotFound: 'license_instance_not_found',
    limitReached: 'license_limit_reached',
    disabled: 'license_key_disabled',
    expired: 'license_key_expired',
  };

/** A refused field of the request (422): missing, not a string, too long. */
export const LICENSE_INPUT_INVALID = 'license_input_invalid';

function codeOf(status: number, error: unknown): string {
  for (const [name, message] of Object.entries(LicenseApiMessages)) {
    if (message === error)
      return LicenseApiCodes[name as keyof typeof LicenseApiMessages];
  }
  return status === 422 ? LICENSE_INPUT_INVALID : genericCode(status);
}

/**
 * A License API answer other than 200. It carries the whole plain-JSON body
 * (the refusals also report the key and its meta); the exception filter
 * sends it as is. Its code follows from the message (`LicenseApiCodes`).
 */
export class LicenseApiError extends PlainJsonError {
  constructor(status: 400 | 404 | 422, body: Record<string, unknown>) {
    super(status, body, codeOf(status, body.error));
  }
}
