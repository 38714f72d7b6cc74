import { AppError } from '../../common/app-error';
import { CommonErrors } from '../../common/common.errors';

/** The account module's errors: users and API keys. */
export const AccountErrors = {
  ...CommonErrors,

  userNotFound: (userId: number) =>
    AppError.notFound(`User ${userId} does not exist.`, 'user_not_found'),

  apiKeyNotFound: (id: number) =>
    AppError.notFound(`API key ${id} does not exist.`, 'api_key_not_found'),

  apiKeyMalformed: () =>
    AppError.unauthorized('The API key is malformed.', 'api_key_malformed'),

  apiKeyInvalid: () =>
    AppError.unauthorized('The API key is not valid.', 'api_key_invalid'),

  apiKeyRevoked: () =>
    AppError.unauthorized('The API key has been revoked.', 'api_key_revoked'),

  apiKeyExpired: () =>
    AppError.unauthorized('The API key has expired.', 'api_key_expired'),

  invalidEmail: () =>
    AppError.attribute(
      'email',
      'The email must be a valid email address.',
      'invalid_email',
    ),

  emailTaken: (email: string) =>
    AppError.conflict(
      `A user with the email ${email} already exists.`,
      undefined,
      'user_email_taken',
    ),
};
