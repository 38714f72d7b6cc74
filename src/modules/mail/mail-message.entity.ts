import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { MailKind } from './mail-kinds';

export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** One message of the mail outbox (see the migration for the life cycle). */
@Entity('mail_messages')
export class MailMessage {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'customer_id', type: 'integer', nullable: true })
  customerId: number | null;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ type: 'text' })
  kind: MailKind;

  /** `<kind>:<record id>`: unique, so one cause mails once. */
  @Column({ name: 'cause_key' })
  causeKey: string;

  /** The record the message is about (the order of a receipt). */
  @Column({ name: 'record_id' })
  recordId: number;

  /** What the cause knew that the record does not keep (a checkout's receipt texts). */
  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @Column({ name: 'to_address' })
  toAddress: string;

  @Column({ name: 'from_address', type: 'text', nullable: true })
  fromAddress: string | null;

  @Column({ name: 'reply_to', type: 'text', nullable: true })
  replyTo: string | null;

  @Column({ type: 'text', nullable: true })
  subject: string | null;

  @Column({ type: 'text', nullable: true })
  html: string | null;

  @Column({ type: 'text', nullable: true })
  text: string | null;

  @Column({ type: 'text' })
  status: MailStatus;

  @Column()
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt: Date;

  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil: Date | null;

  /** Fixed before the first SMTP call and kept across retries. */
  @Column({ name: 'message_id', type: 'text', nullable: true })
  messageId: string | null;

  /** The SMTP server's last reply (or why there was none). */
  @Column({ name: 'smtp_reply', type: 'text', nullable: true })
  smtpReply: string | null;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
