import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { transactionQuery } from '../../database/pool-query';
import { MailKind } from './mail-kinds';
import { MailQueue } from './mail.queue';

export interface NewMail {
  kind: MailKind;
  storeId: number;
  customerId: number | null;
  testMode: boolean;
  /** The record the message is about; with the kind, the message's cause. */
  recordId: number;
  /**
   * Tells apart the causes of one kind about one record (a refund's
   * running total, the instant of a cancellation); the `cause_key` is
   * `<kind>:<record id>[:<cause>]`.
   */
  cause?: string;
  to: string;
  /** What the cause knows that the record does not keep. */
  data?: Record<string, unknown>;
  now: Date;
}

/**
 * The mail outbox: a message is a `mail_messages` row written with the
 * caller's EntityManager, so it exists exactly when the change that causes
 * it committed. The unique `cause_key` makes a second write of the same
 * cause (a retried transaction, a duplicate event) a no-op. Rendering and
 * sending happen in the worker, after the commit: the purchase's
 * transaction, which holds the store's order-number lock, pays for one
 * INSERT and nothing else.
 */
@Injectable()
export class MailOutbox implements OnModuleInit, EntitySubscriberInterface {
  private readonly pending = new WeakSet<QueryRunner>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: MailQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    this.dataSource.subscribers.push(this);
  }

  /** False when mail is switched off for the deployment (MAIL_DISABLED). */
  get enabled(): boolean {
    return !this.config.mail.disabled;
  }

  async record(manager: EntityManager, mail: NewMail): Promise<void> {
    if (!this.enabled) return;
    await transactionQuery(
      manager,
      // Nothing when the store switched the kind off (`mail_disabled_kinds`).
      `INSERT INTO mail_messages
         (store_id, customer_id, test_mode, kind, cause_key, record_id, data,
          to_address, next_attempt_at, created_at, updated_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9
         FROM stores WHERE id = $1 AND NOT ($4 = ANY (mail_disabled_kinds))
       ON CONFLICT (cause_key) DO NOTHING`,
      [
        mail.storeId,
        mail.customerId,
        mail.testMode,
        mail.kind,
        mail.cause === undefined
          ? `${mail.kind}:${mail.recordId}`
          : `${mail.kind}:${mail.recordId}:${mail.cause}`,
        mail.recordId,
        JSON.stringify(mail.data ?? {}),
        mail.to,
        mail.now,
      ],
      'mail-messages.insert',
    );
    const runner = manager.queryRunner;
    if (runner?.isTransactionActive) this.pending.add(runner);
    else this.queue.nudge();
  }

  afterTransactionCommit(event: TransactionCommitEvent) {
    const runner = event.queryRunner;
    if (runner.isTransactionActive || !this.pending.has(runner)) return;
    this.pending.delete(runner);
    this.queue.nudge();
  }

  afterTransactionRollback(event: TransactionRollbackEvent) {
    if (!event.queryRunner.isTransactionActive)
      this.pending.delete(event.queryRunner);
  }
}
