import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { poolQuery } from '../../database/pool-query';
import { scoped, sqlScope } from '../../database/tenancy';
import { applyFilters, newestFirst, pageOf } from './billing-list';
import { PeriodUsage, UsageAction } from './usage-aggregation';
import { UsageRecord } from './usage-record.entity';

/** The subscription item a usage post named, with its subscription's state. */
export interface UsageTarget {
  itemId: number;
  storeId: number;
  testMode: boolean;
  isUsageBased: boolean;
  subscriptionStatus: string;
  periodStart: Date;
}

/** Every query for usage records and the per-period totals they fold into. */
@Injectable()
export class UsageRecordRepository {
  constructor(
    @InjectRepository(UsageRecord)
    private readonly records: Repository<UsageRecord>,
  ) {}

  findVisible(principal: Principal, ids: number[]): Promise<UsageRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(this.records.createQueryBuilder('usage'), 'usage', principal)
      .andWhere('usage.id IN (:...ids)', { ids })
      .getMany();
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<UsageRecord>> {
    const builder = this.records.createQueryBuilder('usage');
    applyFilters(builder, 'usage', query.filters, {});
    return pageOf(builder, 'usage', query, principal);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<UsageRecord[]> {
    const builder = scoped(
      this.records.createQueryBuilder('usage'),
      'usage',
      principal,
    );
    applyFilters(builder, 'usage', { [filter]: values }, {});
    return newestFirst(builder, 'usage');
  }

  /**
   * Posts a usage record in one statement (so one round trip and an atomic
   * autocommit): finds the item if the caller may see it, share-locks its
   * subscription (records never land in a period that a renewal is closing
   * at the same moment), and, when the item is usage-based and the
   * subscription still running, inserts the record and folds it into its
   * period's totals (the SQL form of `applyUsage`; concurrent posts
   * serialize on the totals row, so no increment is lost). Returns the item
   * as found (null if invisible) and the record (null if refused).
   */
  async post(
    principal: Principal,
    itemId: number,
    action: UsageAction,
    quantity: number,
    now: Date,
  ): Promise<{ target: UsageTarget | null; record: UsageRecord | null }> {
    const params: unknown[] = [itemId];
    const scope = sqlScope(principal, params);
    const [q, act, at] = [quantity, action, now].map(
      (value) => `$${params.push(value)}`,
    );
    const rows: {
      item_id: number;
      store_id: number;
      test_mode: boolean;
      is_usage_based: boolean;
      status: string;
      period_start: Date;
      record_id: number | null;
    }[] = await poolQuery(
      this.records.manager.connection,
      `WITH target AS (
         SELECT i.id AS item_id, i.store_id, i.test_mode, i.is_usage_based,
                s.status, s.current_period_start AS period_start
           FROM subscription_items i JOIN subscriptions s ON s.id = i.subscription_id
          WHERE i.id = $1 AND ${scope.on('i')}
            FOR SHARE OF s),
       record AS (
         INSERT INTO usage_records
           (subscription_item_id, store_id, test_mode, quantity, action, period_start, created_at, updated_at)
         SELECT item_id, store_id, test_mode, ${q}, ${act}, period_start, ${at}, ${at} FROM target
          WHERE is_usage_based AND status NOT IN ('cancelled', 'expired')
         RETURNING id, subscription_item_id, period_start),
       totals AS (
         INSERT INTO subscription_usage_totals AS t (subscription_item_id, period_start, total, peak)
         SELECT subscription_item_id, period_start, ${q}, ${q} FROM record
         ON CONFLICT (subscription_item_id, period_start) DO UPDATE SET
           total = CASE WHEN ${act} = 'set' THEN ${q} ELSE t.total + ${q} END,
           peak = GREATEST(t.peak, CASE WHEN ${act} = 'set' THEN ${q} ELSE t.total + ${q} END),
           updated_at = now())
       SELECT target.*, record.id AS record_id FROM target LEFT JOIN record ON true`,
      params,
      'usage-records.post',
    );
    const row = rows[0];
    if (!row) return { target: null, record: null };
    const target: UsageTarget = {
      itemId: row.item_id,
      storeId: row.store_id,
      testMode: row.test_mode,
      isUsageBased: row.is_usage_based,
      subscriptionStatus: row.status,
      periodStart: row.period_start,
    };
    const record =
      row.record_id === null
        ? null
        : Object.assign(new UsageRecord(), {
            id: row.record_id,
            subscriptionItemId: target.itemId,
            storeId: target.storeId,
            testMode: target.testMode,
            quantity,
            action,
            periodStart: target.periodStart,
            clientId: null,
            createdAt: now,
            updatedAt: now,
          });
    return { target, record };
  }

  async periodUsage(
    manager: EntityManager | null,
    itemId: number,
    periodStart: Date,
  ): Promise<PeriodUsage | null> {
    const rows: { total: string; peak: string }[] = await (
      manager ?? this.records.manager
    ).query(
      `SELECT total, peak FROM subscription_usage_totals
        WHERE subscription_item_id = $1 AND period_start = $2`,
      [itemId, periodStart],
    );
    return rows.length > 0
      ? { total: Number(rows[0].total), peak: Number(rows[0].peak) }
      : null;
  }

  /** The last total reported in a period before `periodStart` (for `last_ever`). */
  async previousTotal(
    manager: EntityManager | null,
    itemId: number,
    periodStart: Date,
  ): Promise<number | null> {
    const rows: { total: string }[] = await (
      manager ?? this.records.manager
    ).query(
      `SELECT total FROM subscription_usage_totals
        WHERE subscription_item_id = $1 AND period_start < $2
        ORDER BY period_start DESC LIMIT 1`,
      [itemId, periodStart],
    );
    return rows.length > 0 ? Number(rows[0].total) : null;
  }
}
