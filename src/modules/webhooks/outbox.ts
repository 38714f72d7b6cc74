import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import {
  RESOURCE_OBJECTS,
  type ResourceObjects,
} from '../../common/resource-objects';
import { transactionQuery } from '../../database/pool-query';
import { WebhookEventName } from './webhook-events';
import { WebhookRelayNudge } from './webhook-relay.queue';

export interface OutboxEvent<T> {
  name: WebhookEventName;
  storeId: number;
  testMode: boolean;
  /** The JSON:API type of the record the event carries (e.g. `orders`). */
  resource: string;
  /** The record as its GET would show it now; rendered at write time. */
  record: T;
  /** The checkout's `checkout_data.custom`, for order, subscription and license-key events. */
  customData?: Record<string, unknown> | null;
  /**
   * What the change was, beyond the record, for in-process listeners (not
   * part of the webhook payload): `changed` lists what a
   * `subscription_updated` changed (`variant_id` for a plan change), and
   * `refund_amount` is the amount of the refund an `*_refunded` records.
   */
  detail?: { changed?: string[]; refund_amount?: number };
}

/**
 * Reacts to a domain event in the transaction that records it (the mail
 * module writes its notices this way): what it writes commits or rolls back
 * with the change. It must not call other services over the network.
 */
export interface OutboxListener {
  onOutboxEvent(
    manager: EntityManager,
    event: OutboxEvent<unknown>,
  ): Promise<void>;
}

/** Data-modifying CTEs an event is recorded with (see `Outbox.recordWith`). */
export interface OutboxWrite {
  /** `name AS (…)`, comma-separated, with parameters $1…$n. */
  ctes: string;
  parameters: unknown[];
  /** The CTE whose one returned row the event is recorded for. */
  from: string;
  /** That row's column whose value the event's attribute takes. */
  column: string;
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
  private readonly listeners: OutboxListener[] = [];
  /**
   * Per open transaction: the placeholders `watch` was given, each with the
   * ids of the events recorded since whose payload carries it.
   */
  private readonly watched = new WeakMap<QueryRunner, Map<string, string[]>>();

  constructor(
    @Inject(RESOURCE_OBJECTS) private readonly resources: ResourceObjects,
    private readonly dataSource: DataSource,
    private readonly relay: WebhookRelayNudge,
  ) {}

  onModuleInit() {
    // Receives every transaction's commit and rollback (see afterTransaction*).
    this.dataSource.subscribers.push(this);
  }

  /**
   * Registers a listener for every event `record` records (from
   * `onModuleInit`). `recordWith` (order_created, whose record is only
   * complete in SQL) calls none: the purchase has its extensions.
   */
  listen(listener: OutboxListener): void {
    this.listeners.push(listener);
  }

  async record<T>(
    manager: EntityManager,
    event: OutboxEvent<T>,
  ): Promise<void> {
    const data = JSON.stringify(
      this.resources.render(event.resource, event.record),
    );
    const placeholders = [...(this.watchedIn(manager)?.entries() ?? [])].filter(
      ([placeholder]) => data.includes(placeholder),
    );
    const rows = await transactionQuery<{ id: string }>(
      manager,
      `INSERT INTO webhook_events (name, store_id, test_mode, data, custom_data)
       VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [
        event.name,
        event.storeId,
        event.testMode,
        data,
        event.customData ? JSON.stringify(event.customData) : null,
      ],
      'webhook-events.insert',
    );
    for (const [, ids] of placeholders) ids.push(String(rows[0].id));
    this.recorded(manager);
    for (const listener of this.listeners)
      await listener.onOutboxEvent(manager, event);
  }

  /**
   * Records `event` in the statement that makes the change it reports, when
   * one of its attributes is a value only that statement gives: an order's
   * number, drawn under the store's order-number lock. The lock is held
   * until the commit, so one round trip instead of two raises how many
   * purchases a store completes per second.
   *
   * `write.ctes` (data-modifying CTEs using $1…$n) run first; the event's
   * `attribute` takes `write.column` of the one row the CTE `write.from`
   * returns, and that row is what this resolves to. `name` prepares the
   * statement, as for `transactionQuery`.
   */
  async recordWith<T, Row>(
    manager: EntityManager,
    event: OutboxEvent<T>,
    attribute: string,
    write: OutboxWrite,
    name: string,
  ): Promise<Row> {
    const [before, after] = this.renderAround(event, attribute);
    const n = write.parameters.length;
    const rows = await transactionQuery<Row>(
      manager,
      `WITH ${write.ctes},
       event AS (
         INSERT INTO webhook_events (name, store_id, test_mode, data, custom_data)
         SELECT $${n + 1}, $${n + 2}, $${n + 3},
                ($${n + 4}::text || ${write.from}.${write.column} || $${n + 5}::text)::json,
                $${n + 6}::json
           FROM ${write.from})
       SELECT * FROM ${write.from}`,
      [
        ...write.parameters,
        event.name,
        event.storeId,
        event.testMode,
        before,
        after,
        event.customData ? JSON.stringify(event.customData) : null,
      ],
      name,
    );
    if (rows.length !== 1)
      throw new Error(`${name}: expected one row, got ${rows.length}`);
    this.recorded(manager);
    return rows[0];
  }

  /**
   * The event's JSON text before and after the value of `attribute`, so
   * that SQL can put the value in between. A random placeholder marks the
   * spot: no other text in the payload can equal it.
   */
  private renderAround<T>(
    event: OutboxEvent<T>,
    attribute: string,
  ): [string, string] {
    const data = this.resources.render(event.resource, event.record);
    if (!(attribute in data.attributes))
      throw new Error(`${event.resource} has no attribute ${attribute}`);
    const placeholder = randomUUID();
    (data.attributes as Record<string, unknown>)[attribute] = placeholder;
    const parts = JSON.stringify(data).split(JSON.stringify(placeholder));
    return [parts[0], parts[1]];
  }

  /**
   * Remembers, until this transaction ends, which events recorded from now
   * on carry `placeholder` (a value drawn later in the transaction, such as
   * an invoice number taken as its last statement): `carrying` lists them,
   * for that statement to put the value in their payloads.
   */
  watch(manager: EntityManager, placeholder: string): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive)
      throw new Error('Outbox.watch needs an open transaction');
    let watched = this.watched.get(runner);
    if (!watched) this.watched.set(runner, (watched = new Map()));
    watched.set(placeholder, []);
  }

  /** The ids of the events recorded since `watch(manager, placeholder)` that carry it. */
  carrying(manager: EntityManager, placeholder: string): string[] {
    return this.watchedIn(manager)?.get(placeholder) ?? [];
  }

  private watchedIn(manager: EntityManager) {
    const runner = manager.queryRunner;
    return runner ? this.watched.get(runner) : undefined;
  }

  /** The relay is nudged once the event is visible: after the commit, if any. */
  private recorded(manager: EntityManager) {
    const runner = manager.queryRunner;
    if (runner?.isTransactionActive) this.pending.add(runner);
    else this.relay.nudge();
  }

  afterTransactionCommit(event: TransactionCommitEvent) {
    const runner = event.queryRunner;
    // A released savepoint is not the commit; wait for the outermost one.
    if (runner.isTransactionActive) return;
    this.watched.delete(runner);
    if (!this.pending.has(runner)) return;
    this.pending.delete(runner);
    this.relay.nudge();
  }

  afterTransactionRollback(event: TransactionRollbackEvent) {
    if (event.queryRunner.isTransactionActive) return;
    this.pending.delete(event.queryRunner);
    this.watched.delete(event.queryRunner);
  }
}
