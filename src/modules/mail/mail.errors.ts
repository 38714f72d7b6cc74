import { AppError } from '../../common/app-error';
import { MAIL_KINDS } from './mail-kinds';

/** The mail module's errors, each with a stable `code`. */
export const MailErrors = {
  /** A store's `mail_from` / `mail_reply_to` that is not one mailbox. */
  invalidMailbox: (field: string) =>
    AppError.attribute(
      field,
      `The ${field} must be one e-mail address, optionally with a name: Example Shop <shop@example.com>.`,
      'invalid_mailbox',
    ),
  /** A list of e-mail kinds naming one Zest does not send. */
  unknownKind: (field: string) =>
    AppError.attribute(
      field,
      `The ${field} must list kinds of e-mail: ${MAIL_KINDS.join(', ')}.`,
      'unknown_mail_kind',
    ),
  /** The mailbox page or a message in it that does not exist (or production). */
  messageNotFound: () =>
    AppError.notFound(
      'There is no such message in the local mailbox.',
      'mail_message_not_found',
    ),
  /** The portal sign-in form's address that is not one e-mail address. */
  invalidSignInEmail: () =>
    AppError.attribute(
      'email',
      'Enter one e-mail address, like you@example.com.',
      'invalid_email',
    ),
};
