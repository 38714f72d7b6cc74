import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { MAIL_KINDS } from './mail-kinds';
import { MAIL_STATUSES, MailMessage, MailStatus } from './mail-message.entity';

const STATUS_FORMATTED: Record<MailStatus, string> = {
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  failed: 'Failed',
};

/**
 * JSON:API `emails` (beyond the spec, read only): what a buyer was sent,
 * with its status and the SMTP server's reply, for support.
 */
@Injectable()
export class EmailSerializer implements ResourceType<MailMessage> {
  readonly type = 'emails';
  readonly relationships = {
    store: {
      kind: 'one',
      type: 'stores',
      id: (message: MailMessage) => message.storeId,
    },
    customer: {
      kind: 'one',
      type: 'customers',
      id: (message: MailMessage) => message.customerId,
    },
  } as const;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      customer_id: filterParsers.id,
      status: filterParsers.oneOf(...MAIL_STATUSES),
      kind: filterParsers.oneOf(...MAIL_KINDS),
    },
    sorts: ['created_at', 'updated_at'],
    defaultSort: '-createdAt',
  };

  id(message: MailMessage) {
    return String(message.id);
  }

  attributes(message: MailMessage) {
    return {
      store_id: message.storeId,
      customer_id: message.customerId,
      kind: message.kind,
      to: message.toAddress,
      from: message.fromAddress,
      reply_to: message.replyTo,
      subject: message.subject,
      status: message.status,
      status_formatted: STATUS_FORMATTED[message.status],
      attempts: message.attempts,
      smtp_reply: message.smtpReply,
      message_id: message.messageId,
      sent_at: formatTimestamp(message.sentAt),
      created_at: formatTimestamp(message.createdAt),
      updated_at: formatTimestamp(message.updatedAt),
      test_mode: message.testMode,
    };
  }
}
