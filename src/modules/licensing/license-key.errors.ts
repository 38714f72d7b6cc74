import { AppError } from '../../common/app-error';

/** The license-keys resource's errors (the License API's are in license-api.errors.ts). */
export const LicenseKeyErrors = {
  invalidExpiry: () =>
    AppError.attribute(
      'expires_at',
      'The expires_at must be an ISO 8601 date-time with a time zone, or null.',
      'invalid_attribute',
    ),
};
