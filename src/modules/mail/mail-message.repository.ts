import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { poolQuery } from '../../database/pool-query';
import { scoped, scopedListPage } from '../../database/tenancy';
import { MailMessage } from './mail-message.entity';
import { RenderedMail } from './mail-kinds';
import { MailSendJob } from './mail.queue';

/** What the first claim fixes on a message: its content, sender and Message-ID. */
export interface MailContent extends RenderedMail {
  from: string;
  replyTo: string | null;
  messageId: string;
}

/**
 * Every query of the mail outbox. Each change of a message's status is
 * conditional on the attempt it belongs to (`attempts`), so a worker whose
 * claim expired and was taken over can no longer change the message.
 */
@Injectable()
export class MailMessageRepository {
  constructor(
    @InjectRepository(MailMessage)
    private readonly messages: Repository<MailMessage>,
    private readonly dataSource: DataSource,
  ) {}

  /** Rows of one statement (TypeORM's `query` returns [rows, count] for an UPDATE). */
  private rows<T>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    return poolQuery<T>(this.dataSource, sql, parameters);
  }

  findById(id: number): Promise<MailMessage | null> {
    return this.messages.findOneBy({ id });
  }

  /** Messages a key sees: of its user's stores, in its mode. */
  private visible(principal: Principal): SelectQueryBuilder<MailMessage> {
    return scoped(
      this.messages.createQueryBuilder('message'),
      'message',
      principal,
    );
  }

  findVisible(principal: Principal, ids: number[]): Promise<MailMessage[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visible(principal)
      .andWhere('message.id IN (:...ids)', { ids })
      .getMany();
  }

  findVisibleBy(
    principal: Principal,
    filter: 'store_id' | 'customer_id',
    values: FilterValue[],
  ): Promise<MailMessage[]> {
    if (values.length === 0) return Promise.resolve([]);
    return this.visible(principal)
      .andWhere(`message.${filter} IN (:...values)`, { values })
      .orderBy('message.created_at', 'DESC')
      .addOrderBy('message.id', 'DESC')
      .getMany();
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<MailMessage>> {
    const builder = this.messages.createQueryBuilder('message');
    for (const filter of ['store_id', 'customer_id', 'status', 'kind']) {
      const value = query.filters[filter];
      if (value !== undefined)
        builder.andWhere(`message.${filter} = :${filter}`, {
          [filter]: value,
        });
    }
    return scopedListPage(
      builder,
      'message',
      { created_at: 'message.created_at', updated_at: 'message.updated_at' },
      query,
      principal,
    );
  }

  /**
   * Queued messages whose attempt is due and not yet handed to the queue
   * (or handed over a minute ago and still queued: the job was lost), as
   * their next send jobs, marked as handed over. Oldest first.
   */
  async takeDue(limit: number): Promise<MailSendJob[]> {
    const rows = await this.rows<{ id: number; attempts: number }>(
      `UPDATE mail_messages SET enqueued_at = now()
        WHERE id IN (
          SELECT id FROM mail_messages
           WHERE status = 'queued' AND next_attempt_at <= now()
             AND (enqueued_at IS NULL OR enqueued_at < now() - interval '1 minute')
           ORDER BY next_attempt_at, id LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING id, attempts`,
      [limit],
    );
    return rows.map((row) => ({
      messageId: row.id,
      attempt: row.attempts + 1,
    }));
  }

  /**
   * Messages whose sender stopped mid-send (killed, or slower than its
   * claim) go back to the queue, due at once. The SMTP server may have
   * accepted them: see README "E-mail" on the one window where a message
   * can go out twice.
   */
  async requeueExpiredClaims(): Promise<number> {
    const rows = await this.rows<{ id: number }>(
      `UPDATE mail_messages
          SET status = 'queued', claimed_until = NULL, next_attempt_at = now(),
              enqueued_at = NULL,
              smtp_reply = 'The sending worker stopped before it recorded the outcome.',
              updated_at = now()
        WHERE status = 'sending' AND claimed_until < now()
        RETURNING id`,
    );
    return rows.length;
  }

  /**
   * Takes attempt `job.attempt` of a queued message for this worker, in
   * its own committed statement, before any SMTP call: the message is
   * `sending` until `leaseMs` from now, and its content and Message-ID are
   * fixed by the first claim (later attempts resend the same message).
   * Null when the attempt is not the message's next one (a duplicate job,
   * or another worker has it).
   */
  async claim(
    job: MailSendJob,
    content: MailContent | null,
    leaseMs: number,
  ): Promise<MailMessage | null> {
    const rows = await this.rows<{ id: number }>(
      `UPDATE mail_messages
          SET status = 'sending', attempts = attempts + 1,
              claimed_until = now() + $3 * interval '1 millisecond',
              subject = COALESCE(subject, $4), html = COALESCE(html, $5),
              text = COALESCE(text, $6),
              from_address = COALESCE(from_address, $7),
              reply_to = CASE WHEN subject IS NULL THEN $8 ELSE reply_to END,
              message_id = COALESCE(message_id, $9),
              updated_at = now()
        WHERE id = $1 AND status = 'queued' AND attempts = $2 - 1
          AND (subject IS NOT NULL OR $4::text IS NOT NULL)
        RETURNING id`,
      [
        job.messageId,
        job.attempt,
        leaseMs,
        content?.subject ?? null,
        content?.html ?? null,
        content?.text ?? null,
        content?.from ?? null,
        content?.replyTo ?? null,
        content?.messageId ?? null,
      ],
    );
    return rows.length === 1 ? this.findById(job.messageId) : null;
  }

  async markSent(job: MailSendJob, reply: string): Promise<void> {
    await this.settle(job, 'sent', reply, `sent_at = now(),`);
  }

  async markFailed(job: MailSendJob, reply: string): Promise<void> {
    await this.settle(job, 'failed', reply);
  }

  /** A message that could not be rendered fails without a claim. */
  async failUnsendable(job: MailSendJob, reason: string): Promise<void> {
    await this.rows(
      `UPDATE mail_messages
          SET status = 'failed', attempts = attempts + 1, smtp_reply = $3,
              updated_at = now()
        WHERE id = $1 AND status = 'queued' AND attempts = $2 - 1`,
      [job.messageId, job.attempt, reason],
    );
  }

  /** Back to the queue, due after `delayMs`. */
  async markRetry(
    job: MailSendJob,
    reply: string,
    delayMs: number,
  ): Promise<boolean> {
    const rows = await this.rows<{ id: number }>(
      `UPDATE mail_messages
          SET status = 'queued', claimed_until = NULL, smtp_reply = $3,
              enqueued_at = now(),
              next_attempt_at = now() + $4 * interval '1 millisecond',
              updated_at = now()
        WHERE id = $1 AND status = 'sending' AND attempts = $2
        RETURNING id`,
      [job.messageId, job.attempt, reply, delayMs],
    );
    return rows.length === 1;
  }

  private async settle(
    job: MailSendJob,
    status: 'sent' | 'failed',
    reply: string,
    extra = '',
  ): Promise<void> {
    await this.rows(
      `UPDATE mail_messages
          SET status = $3, smtp_reply = $4, claimed_until = NULL, ${extra}
              updated_at = now()
        WHERE id = $1 AND status = 'sending' AND attempts = $2`,
      [job.messageId, job.attempt, status, reply],
    );
  }
}
