import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { poolQuery } from '../../database/pool-query';
import { callerScopes, scoped } from '../../database/tenancy';
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

/** The columns a usage target is read from (single posts and batches select the same). */
export interface UsageTargetRow {
  item_id: number;
  store_id: number;
  test_mode: boolean;
  is_usage_based: boolean;
  status: string;
  period_start: Date;
}

export function usageTargetOf(row: UsageTargetRow): UsageTarget {
  return {
    itemId: row.item_id,
    storeId: row.store_id,
    testMode: row.test_mode,
    isUsageBased: row.is_usage_based,
    subscriptionStatus: row.status,
    periodStart: row.period_start,
  };
}

/** One usage record to post, for its caller. */
export interface UsagePost {
  principal: Principal;
  itemId: number;
  action: UsageAction;
  quantity: number;
}

/** A post's outcome: the item as found (null if invisible) and the record (null if refused). */
export interface UsagePosted {
  target: UsageTarget | null;
  record: UsageRecord | null;
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
   * Posts usage records, each for its own caller, in one statement (so one
   * round trip and one atomic autocommit for all of them): finds each
   * member's item if its caller may see it, share-locks the subscriptions
   * in id order (records never land in a period that a renewal is closing
   * at the same moment), and, for each item that is usage-based with its
   * subscription still running, inserts the record and folds it into its
   * period's totals in the members' order (the SQL form of `applyUsage`:
   * an `increment` adds, a `set` replaces, the peak is the highest total
   * reached; each totals row is written once, the rows in key order, so
   * concurrent posts serialize on them and lose no increment). Answers,
   * in the members' order, each item as found (null if invisible) and its
   * record (null if refused); a refused member writes nothing.
   */
  async post(posts: UsagePost[], now: Date): Promise<UsagePosted[]> {
    const params: unknown[] = [];
    const scope = callerScopes(
      posts.map((post) => post.principal),
      params,
    );
    const [items, quantities, actions] = [
      posts.map((post) => post.itemId),
      posts.map((post) => post.quantity),
      posts.map((post) => post.action),
    ].map((values) => `$${params.push(values)}`);
    const at = `$${params.push(now)}`;
    const rows: ((UsageTargetRow | { item_id: null }) & {
      record_id: number | null;
    })[] = await poolQuery(
      this.records.manager.connection,
      `WITH target AS (
         SELECT callers.ord, i.id AS item_id, i.store_id, i.test_mode, i.is_usage_based,
                s.status, s.current_period_start AS period_start, m.quantity, m.action
           FROM ${scope.callers}
           JOIN unnest(${items}::integer[], ${quantities}::integer[], ${actions}::text[])
                WITH ORDINALITY AS m(item, quantity, action, ord) ON m.ord = callers.ord
           JOIN subscription_items i ON i.id = m.item AND ${scope.on('i')}
           JOIN subscriptions s ON s.id = i.subscription_id
          ORDER BY s.id
            FOR SHARE OF s),
       accepted AS (
         SELECT nextval('usage_records_id_seq')::integer AS id, a.*
           FROM (SELECT * FROM target
                  WHERE is_usage_based AND status NOT IN ('cancelled', 'expired')
                  ORDER BY ord) a),
       record AS (
         INSERT INTO usage_records
           (id, subscription_item_id, store_id, test_mode, quantity, action, period_start, created_at, updated_at)
         SELECT id, item_id, store_id, test_mode, quantity, action, period_start, ${at}, ${at}
           FROM accepted),
       -- Each item's records in order, cut into segments that a set starts:
       -- a segment ends at the set's quantity plus the increments after it;
       -- segment 0 (before any set) adds its increments to the stored total.
       step AS (
         SELECT item_id, period_start, quantity,
                count(*) FILTER (WHERE action = 'set')
                  OVER (PARTITION BY item_id, period_start ORDER BY ord) AS segment
           FROM accepted),
       segment AS (
         SELECT item_id, period_start, segment, sum(quantity) AS value
           FROM step GROUP BY item_id, period_start, segment),
       fold AS (
         SELECT item_id, period_start,
                COALESCE(sum(value) FILTER (WHERE segment = 0), 0) AS added,
                max(segment) > 0 AS has_set,
                (array_agg(value ORDER BY segment DESC))[1] AS last,
                COALESCE(max(value) FILTER (WHERE segment > 0), 0) AS set_peak
           FROM segment GROUP BY item_id, period_start),
       totals AS (
         INSERT INTO subscription_usage_totals AS t (subscription_item_id, period_start, total, peak)
         SELECT item_id, period_start, CASE WHEN has_set THEN last ELSE added END, GREATEST(added, set_peak)
           FROM fold ORDER BY item_id, period_start
         ON CONFLICT (subscription_item_id, period_start) DO UPDATE SET
           (total, peak, updated_at) = (
             SELECT CASE WHEN f.has_set THEN f.last ELSE t.total + f.added END,
                    GREATEST(t.peak, t.total + f.added, f.set_peak),
                    now()
               FROM fold f
              WHERE f.item_id = EXCLUDED.subscription_item_id
                AND f.period_start = EXCLUDED.period_start))
       SELECT target.item_id, target.store_id, target.test_mode, target.is_usage_based,
              target.status, target.period_start, accepted.id AS record_id
         FROM unnest(${items}::integer[]) WITH ORDINALITY AS member(item, ord)
         LEFT JOIN target ON target.ord = member.ord
         LEFT JOIN accepted ON accepted.ord = member.ord
        ORDER BY member.ord`,
      params,
      'usage-records.post',
    );
    return rows.map((row, i) => {
      if (row.item_id === null) return { target: null, record: null };
      const target = usageTargetOf(row);
      const record =
        row.record_id === null
          ? null
          : Object.assign(new UsageRecord(), {
              id: row.record_id,
              subscriptionItemId: target.itemId,
              storeId: target.storeId,
              testMode: target.testMode,
              quantity: posts[i].quantity,
              action: posts[i].action,
              periodStart: target.periodStart,
              clientId: null,
              createdAt: now,
              updatedAt: now,
            });
      return { target, record };
    });
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
