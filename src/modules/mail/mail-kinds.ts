/** The kinds of message Zest sends; a message's `cause_key` starts with its kind. */
export const MAIL_KINDS = [
  'order_receipt',
  'subscription_started',
  'subscription_renewed',
  'subscription_payment_failed',
  'subscription_trial_ending',
  'subscription_cancelled',
  'subscription_expired',
  'subscription_resumed',
  'subscription_plan_changed',
  'refund_issued',
  'portal_sign_in',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** What a kind's message is rendered to. */
export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}
