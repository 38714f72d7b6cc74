import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { transactionQuery } from '../../database/pool-query';
import { JsonApi } from '../../http/json-api/json-api.service';
import { ResourceRenderer } from '../../http/json-api/resource';
import { WebhookEventName } from './webhook-events';
import { WebhookRelayNudge } from './webhook-relay.queue';

export interface OutboxEvent<T> {
  name: WebhookEventName;
  storeId: number;
  testMode: boolean;
  /** The serializer of the resource the event carries (e.g. the orders serializer). */
  resource: ResourceRenderer<T>;
  /** The record as its GET would show it now; rendered at write time. */
  record: T;
  /** The checkout's `checkout_data.custom`, for order, subscription and license-key events. */
  customData?: Record<string, unknown> | null;
}

/**
 * The transactional outbox every domain module writes its events to. An
 * event is a row in `webhook_events` inserted with the caller's
 * EntityManager, so it commits or rolls back with the change it reports;
 * the worker's relay turns it into deliveries after commit.
 */
@Injectable()
export class Outbox implements OnModuleInit, EntitySubscriberInterface {
  /** Transactions that wrote events and have not committed yet. */
  private readonly pending = new WeakSet<QueryRunner>();

  constructor(
    private readonly jsonApi: JsonApi,
    private readonly dataSource: DataSource,
    private readonly relay: WebhookRelayNudge,
  ) {}

  onModuleInit() {
    // Receives every transaction's commit and rollback (see afterTransaction*).
    this.dataSource.subscribers.push(this);
  }

  async record<T>(
    manager: EntityManager,
    event: OutboxEvent<T>,
  ): Promise<void> {
    const data = this.jsonApi.resourceObject(event.resource, event.record);
    await transactionQuery(
      manager,
      `INSERT INTO webhook_events (name, store_id, test_mode, data, custom_data)
       VALUES ($1, $2, $3, $4, $5)`,
      [
        event.name,
        event.storeId,
        event.testMode,
        JSON.stringify(data),
        event.customData ? JSON.stringify(event.customData) : null,
      ],
      'webhook-events.insert',
    );
    const runner = manager.queryRunner;
    if (runner?.isTransactionActive) this.pending.add(runner);
    else this.relay.nudge();
  }

  afterTransactionCommit(event: TransactionCommitEvent) {
    const runner = event.queryRunner;
    // A released savepoint is not the commit; wait for the outermost one.
    if (runner.isTransactionActive || !this.pending.has(runner)) return;
    this.pending.delete(runner);
    this.relay.nudge();
  }

  afterTransactionRollback(event: TransactionRollbackEvent) {
    if (!event.queryRunner.isTransactionActive)
      this.pending.delete(event.queryRunner);
  }
}
