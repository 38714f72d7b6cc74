import { AppError } from '../../common/app-error';
import { MAIL_KINDS } from './mail-kinds';

/** The mail module's errors, each with a stable `code`. */
export const MailErrors = {
  /** A store's `mail_from` / `mail_reply_to` that is not one mailbox. */
  invalidMailbox: (attribute: string) =>
    new AppError(422, {
      detail: `The ${attribute} must be one e-mail address, optionally with a name: Example Shop <shop@example.com>.`,
      source: { pointer: `/data/attributes/${attribute}` },
      code: 'invalid_mailbox',
    }),
  /** A list of e-mail kinds naming one Zest does not send. */
  unknownKind: (attribute: string) =>
    new AppError(422, {
      detail: `The ${attribute} must list kinds of e-mail: ${MAIL_KINDS.join(', ')}.`,
      source: { pointer: `/data/attributes/${attribute}` },
      code: 'unknown_mail_kind',
    }),
  /** The mailbox page or a message in it that does not exist (or production). */
  messageNotFound: () =>
    new AppError(404, {
      detail: 'There is no such message in the local mailbox.',
      code: 'mail_message_not_found',
    }),
};
