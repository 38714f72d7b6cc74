import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

/** A message as it goes on the wire. */
export interface OutgoingMail {
  from: string;
  replyTo: string | null;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** `<…@…>`, fixed before the first attempt. */
  messageId: string;
  date: Date;
}

export type SendOutcome =
  | { status: 'sent'; reply: string }
  /** The server refused for good (5xx): retrying cannot help. */
  | { status: 'failed'; reply: string }
  /** No answer, or a temporary refusal (4xx): try again later. */
  | { status: 'retry'; reply: string };

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** What the message's record keeps of an SMTP error: the server's reply, or why there was none. */
function replyOf(error: SmtpError): string {
  const text = error.response ?? error.message ?? 'Unknown error';
  // One line, bounded: a reply is shown to support staff, not parsed.
  return text.replace(/\s+/g, ' ').slice(0, 1000);
}

/**
 * Classifies a failed send. A 5xx reply is permanent (RFC 5321 4.2.1),
 * except authentication failures, which the operator fixes in MAIL_URL:
 * those, 4xx replies and connection errors are retried.
 */
export function outcomeOfError(error: SmtpError): SendOutcome {
  const code = error.responseCode;
  if (code !== undefined && code >= 500 && code < 600 && error.code !== 'EAUTH')
    return { status: 'failed', reply: replyOf(error) };
  return { status: 'retry', reply: replyOf(error) };
}

export const MAILBOX_REPLY =
  'Kept in the local mailbox: MAIL_URL is not set, so nothing was sent.';

/**
 * Sends through the SMTP server of MAIL_URL (pooled connections, DKIM when
 * configured), or, without MAIL_URL, keeps the message in the database only
 * (the local mailbox). Also renders a message's raw source for the mailbox.
 */
@Injectable()
export class MailTransport implements OnModuleDestroy {
  private readonly smtp: Transporter | null;
  private readonly composer: Transporter;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { url, smtpConnections, timeoutMs, dkim } = config.mail;
    this.smtp = url
      ? nodemailer.createTransport({
          url,
          pool: true,
          maxConnections: smtpConnections,
          connectionTimeout: timeoutMs,
          greetingTimeout: timeoutMs,
          socketTimeout: timeoutMs,
          ...(dkim ? { dkim } : {}),
        })
      : null;
    this.composer = nodemailer.createTransport({
      streamTransport: true,
      buffer: true,
      newline: 'windows',
    });
  }

  /** Whether messages leave the process (MAIL_URL), or stay in the mailbox. */
  get delivers(): boolean {
    return this.smtp !== null;
  }

  async send(mail: OutgoingMail): Promise<SendOutcome> {
    if (!this.smtp) return { status: 'sent', reply: MAILBOX_REPLY };
    try {
      const info = (await this.smtp.sendMail(this.options(mail))) as {
        response?: string;
      };
      return { status: 'sent', reply: info.response ?? 'Accepted' };
    } catch (error) {
      return outcomeOfError(error as SmtpError);
    }
  }

  /** The message as the SMTP server receives it (without the DKIM signature). */
  async source(mail: OutgoingMail): Promise<string> {
    const info = (await this.composer.sendMail(this.options(mail))) as {
      message: Buffer;
    };
    return info.message.toString('utf8');
  }

  onModuleDestroy() {
    this.smtp?.close();
    this.composer.close();
  }

  private options(mail: OutgoingMail): Mail.Options {
    return {
      from: mail.from,
      to: mail.to,
      replyTo: mail.replyTo ?? undefined,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      messageId: mail.messageId,
      date: mail.date,
      headers: { 'Auto-Submitted': 'auto-generated' },
    };
  }
}
