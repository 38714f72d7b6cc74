import { AppError } from '../../common/app-error';

/** The license-keys resource's errors (the License API's are in license-api.errors.ts). */
export const LicenseKeyErrors = {
  /** The portal's deactivate form names an instance the key does not have. */
  instanceNotFound: () =>
    AppError.notFound(
      'This activation does not exist (it may already be deactivated).',
      'license_instance_not_found',
    ),

  /** The License API refused the deactivation (a disabled or expired key). */
  deactivationRefused: (detail: string) =>
    AppError.unprocessable({
      detail,
      code: 'license_deactivation_refused',
    }),

  invalidExpiry: () =>
    AppError.attribute(
      'expires_at',
      'The expires_at must be an ISO 8601 date-time with a time zone, or null.',
      'invalid_attribute',
    ),
};
