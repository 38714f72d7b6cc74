import { LicenseApiError } from './license-api.errors';
import { LicenseOperation, OUTCOME_FLAG } from './license-api.service';

const MAX_LENGTH = 255;

/**
 * Reads one License API field from a form or JSON body. A missing or
 * unusable field is a 422 in the License API's own shape.
 */
export function licenseField(
  operation: LicenseOperation,
  body: unknown,
  name: string,
  required: true,
): string;
export function licenseField(
  operation: LicenseOperation,
  body: unknown,
  name: string,
  required: false,
): string | undefined;
export function licenseField(
  operation: LicenseOperation,
  body: unknown,
  name: string,
  required: boolean,
): string | undefined {
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  const label = name.replace(/_/g, ' ');
  const refuse = (error: string) =>
    new LicenseApiError(422, { [OUTCOME_FLAG[operation]]: false, error });
  if (value === undefined || value === null || value === '') {
    if (required) throw refuse(`The ${label} field is required.`);
    return undefined;
  }
  if (typeof value !== 'string') throw refuse(`The ${label} must be a string.`);
  if (value.length > MAX_LENGTH) {
    throw refuse(
      `The ${label} may not be greater than ${MAX_LENGTH} characters.`,
    );
  }
  return value;
}
