import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Principal } from '../../common/principal';
import { sqlScope } from '../../database/tenancy';
import { Transactions } from '../../database/transactions';
import { UsageAction } from './usage-aggregation';
import { UsageRecord } from './usage-record.entity';
import {
  UsageTarget,
  usageTargetOf,
  UsageTargetRow,
} from './usage-record.repository';

/** One member of a batch post, as validated. */
export interface UsageEntry {
  itemId: number;
  action: UsageAction;
  quantity: number;
  /** The client's id: a record with it already in the store and mode is not added again. */
  clientId: string | null;
}

/**
 * A batch post's outcome: the records in the batch's order (a repeated
 * client id answers with the record first posted under it), or the index
 * of the first member whose item refuses usage, with the item as found
 * (null: not visible to the caller). A refusal writes nothing.
 */
export type UsageBatchOutcome =
  { records: UsageRecord[] } | { refused: number; target: UsageTarget | null };

type TargetRow = UsageTargetRow & { period_text: string };

/**
 * An item as a batch sees it: `period` is its period's start as PostgreSQL
 * spells it (to the microsecond, where a Date keeps milliseconds), so the
 * records and totals land on exactly the period a single post uses.
 */
type Target = UsageTarget & { period: string };

interface RecordRow {
  id: number;
  subscription_item_id: number;
  store_id: number;
  test_mode: boolean;
  quantity: number;
  action: UsageAction;
  period_start: Date;
  client_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Batch usage posts (`POST /v1/usage-records` with `data` an array): every
 * record and every total in one transaction, a fixed number of statements
 * whatever the batch's size. The items' subscriptions are share-locked as a
 * single post locks its one (no record lands in a period a renewal is
 * closing), the totals rows are locked in key order (batches never
 * deadlock on each other) and folded in the batch's order.
 */
@Injectable()
export class UsageBatchRepository {
  constructor(private readonly transactions: Transactions) {}

  post(
    principal: Principal,
    entries: UsageEntry[],
    now: Date,
  ): Promise<UsageBatchOutcome> {
    return this.transactions.run(async (manager) => {
      const targets = await this.targets(manager, principal, entries);
      const refused = entries.findIndex((entry) => {
        const target = targets.get(entry.itemId);
        return (
          !target ||
          !target.isUsageBased ||
          ['cancelled', 'expired'].includes(target.subscriptionStatus)
        );
      });
      if (refused >= 0)
        return {
          refused,
          target: targets.get(entries[refused].itemId) ?? null,
        };
      const records = await this.insert(
        manager,
        principal,
        entries,
        targets,
        now,
      );
      await this.fold(
        manager,
        entries.filter((_, i) => records[i].inserted),
        targets,
      );
      return { records: records.map((r) => r.record) };
    });
  }

  /** The batch's items visible to the caller, their subscriptions share-locked in id order. */
  private async targets(
    manager: EntityManager,
    principal: Principal,
    entries: UsageEntry[],
  ): Promise<Map<number, Target>> {
    const params: unknown[] = [[...new Set(entries.map((e) => e.itemId))]];
    const scope = sqlScope(principal, params);
    const rows: TargetRow[] = await manager.query(
      `SELECT i.id AS item_id, i.store_id, i.test_mode, i.is_usage_based,
              s.status, s.current_period_start AS period_start,
              s.current_period_start::text AS period_text
         FROM subscription_items i JOIN subscriptions s ON s.id = i.subscription_id
        WHERE i.id = ANY ($1::integer[]) AND ${scope.on('i')}
        ORDER BY s.id
          FOR SHARE OF s`,
      params,
    );
    return new Map(
      rows.map((row) => [
        row.item_id,
        { ...usageTargetOf(row), period: row.period_text },
      ]),
    );
  }

  /**
   * Inserts the records with ids taken up front (so each member knows its
   * row); a client id already used in the store and mode, by an earlier
   * post or earlier in this batch, inserts nothing and answers with that
   * record.
   */
  private async insert(
    manager: EntityManager,
    principal: Principal,
    entries: UsageEntry[],
    targets: Map<number, Target>,
    now: Date,
  ): Promise<{ record: UsageRecord; inserted: boolean }[]> {
    const ids: { id: number }[] = await manager.query(
      `SELECT nextval('usage_records_id_seq')::integer AS id
         FROM generate_series(1, $1)`,
      [entries.length],
    );
    const target = (entry: UsageEntry) => targets.get(entry.itemId)!;
    const inserted: { id: number }[] = await manager.query(
      `INSERT INTO usage_records
         (id, subscription_item_id, store_id, test_mode, quantity, action,
          period_start, client_id, created_at, updated_at)
       SELECT r.*, $9::timestamptz, $9::timestamptz
         FROM unnest($1::integer[], $2::integer[], $3::integer[], $4::boolean[],
                     $5::integer[], $6::text[], $7::timestamptz[], $8::text[])
           AS r(id, item, store, mode, quantity, action, period, client_id)
       ON CONFLICT (store_id, test_mode, client_id) WHERE client_id IS NOT NULL
       DO NOTHING
       RETURNING id`,
      [
        ids.map((row) => row.id),
        entries.map((e) => e.itemId),
        entries.map((e) => target(e).storeId),
        entries.map((e) => target(e).testMode),
        entries.map((e) => e.quantity),
        entries.map((e) => e.action),
        entries.map((e) => target(e).period),
        entries.map((e) => e.clientId),
        now,
      ],
    );
    const written = new Set(inserted.map((row) => row.id));
    const existing = await this.byClientId(
      manager,
      principal,
      entries.filter((_, i) => !written.has(ids[i].id)),
    );
    return entries.map((entry, i) => {
      const id = ids[i].id;
      if (written.has(id)) {
        const t = target(entry);
        return {
          inserted: true,
          record: Object.assign(new UsageRecord(), {
            id,
            subscriptionItemId: entry.itemId,
            storeId: t.storeId,
            testMode: t.testMode,
            quantity: entry.quantity,
            action: entry.action,
            periodStart: t.periodStart,
            clientId: entry.clientId,
            createdAt: now,
            updatedAt: now,
          }),
        };
      }
      const key = `${target(entry).storeId}:${entry.clientId}`;
      return { inserted: false, record: existing.get(key)! };
    });
  }

  /** The records already posted under the members' client ids, by store and id. */
  private async byClientId(
    manager: EntityManager,
    principal: Principal,
    entries: UsageEntry[],
  ): Promise<Map<string, UsageRecord>> {
    if (entries.length === 0) return new Map();
    const params: unknown[] = [entries.map((e) => e.clientId)];
    const scope = sqlScope(principal, params);
    const rows: RecordRow[] = await manager.query(
      `SELECT u.* FROM usage_records u
        WHERE u.client_id = ANY ($1::text[]) AND ${scope.on('u')}`,
      params,
    );
    return new Map(
      rows.map((row) => [
        `${row.store_id}:${row.client_id}`,
        Object.assign(new UsageRecord(), {
          id: row.id,
          subscriptionItemId: row.subscription_item_id,
          storeId: row.store_id,
          testMode: row.test_mode,
          quantity: row.quantity,
          action: row.action,
          periodStart: row.period_start,
          clientId: row.client_id,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        }),
      ]),
    );
  }

  /**
   * Folds the inserted records into their periods' totals, in the batch's
   * order, as `applyUsage` would one by one: the rows are created if need
   * be, locked in key order, then written once each.
   */
  private async fold(
    manager: EntityManager,
    entries: UsageEntry[],
    targets: Map<number, Target>,
  ): Promise<void> {
    if (entries.length === 0) return;
    const keys = [
      ...new Map(
        entries.map((e) => {
          const period = targets.get(e.itemId)!.period;
          return [`${e.itemId}@${period}`, [e.itemId, period] as const];
        }),
      ).values(),
    ].sort(([a, p], [b, q]) => a - b || (p < q ? -1 : p > q ? 1 : 0));
    const itemIds = keys.map(([item]) => item);
    const periods = keys.map(([, period]) => period);
    await manager.query(
      `INSERT INTO subscription_usage_totals (subscription_item_id, period_start, total, peak)
       SELECT item, period, 0, 0
         FROM unnest($1::integer[], $2::timestamptz[]) AS k(item, period)
       ON CONFLICT (subscription_item_id, period_start) DO NOTHING`,
      [itemIds, periods],
    );
    const rows: {
      subscription_item_id: number;
      period: string;
      total: string;
      peak: string;
    }[] = await manager.query(
      `SELECT t.subscription_item_id, t.period_start::text AS period, t.total, t.peak
         FROM subscription_usage_totals t
         JOIN unnest($1::integer[], $2::timestamptz[]) AS k(item, period)
           ON t.subscription_item_id = k.item AND t.period_start = k.period
        ORDER BY t.subscription_item_id, t.period_start
          FOR UPDATE OF t`,
      [itemIds, periods],
    );
    const totals = new Map(
      rows.map((row) => [
        `${row.subscription_item_id}@${row.period}`,
        { total: BigInt(row.total), peak: BigInt(row.peak) },
      ]),
    );
    for (const entry of entries) {
      const period = targets.get(entry.itemId)!.period;
      const totalsOf = totals.get(`${entry.itemId}@${period}`)!;
      const quantity = BigInt(entry.quantity);
      totalsOf.total =
        entry.action === 'set' ? quantity : totalsOf.total + quantity;
      if (totalsOf.total > totalsOf.peak) totalsOf.peak = totalsOf.total;
    }
    await manager.query(
      `UPDATE subscription_usage_totals t
          SET total = u.total, peak = u.peak, updated_at = now()
         FROM unnest($1::integer[], $2::timestamptz[], $3::bigint[], $4::bigint[])
           AS u(item, period, total, peak)
        WHERE t.subscription_item_id = u.item AND t.period_start = u.period`,
      [
        itemIds,
        periods,
        keys.map(([item, period]) =>
          totals.get(`${item}@${period}`)!.total.toString(),
        ),
        keys.map(([item, period]) =>
          totals.get(`${item}@${period}`)!.peak.toString(),
        ),
      ],
    );
  }
}
