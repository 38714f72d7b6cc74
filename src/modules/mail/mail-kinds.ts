/** The kinds of message Zest sends; a message's `cause_key` starts with its kind. */
export const MAIL_KINDS = ['order_receipt'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** What a kind's message is rendered to. */
export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}
