import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Principal } from '../../http/auth/principal';
import { FilterValue, ListQuery } from '../../http/json-api/list-query';
import { Page } from '../../http/json-api/resource';
import { applyFilters, newestFirst, pageOf, scopeTo } from './billing-list';
import { PeriodUsage, UsageAction } from './usage-aggregation';
import { UsageRecord } from './usage-record.entity';

/** Every query for usage records and the per-period totals they fold into. */
@Injectable()
export class UsageRecordRepository {
  constructor(
    @InjectRepository(UsageRecord)
    private readonly records: Repository<UsageRecord>,
  ) {}

  findVisible(principal: Principal, ids: number[]): Promise<UsageRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scopeTo(this.records.createQueryBuilder('usage'), 'usage', principal)
      .andWhere('usage.id IN (:...ids)', { ids })
      .getMany();
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<UsageRecord>> {
    const builder = scopeTo(
      this.records.createQueryBuilder('usage'),
      'usage',
      principal,
    );
    applyFilters(builder, 'usage', query.filters, {});
    return pageOf(builder, 'usage', query);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<UsageRecord[]> {
    const builder = scopeTo(
      this.records.createQueryBuilder('usage'),
      'usage',
      principal,
    );
    applyFilters(builder, 'usage', { [filter]: values }, {});
    return newestFirst(builder, 'usage');
  }

  insert(
    manager: EntityManager,
    fields: Partial<UsageRecord>,
  ): Promise<UsageRecord> {
    return manager.save(UsageRecord, manager.create(UsageRecord, fields));
  }

  /**
   * Folds one record into its period's totals in a single atomic upsert (the
   * SQL form of `applyUsage`): concurrent posts serialize on the totals row,
   * so no increment is lost.
   */
  async apply(
    manager: EntityManager,
    itemId: number,
    periodStart: Date,
    action: UsageAction,
    quantity: number,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO subscription_usage_totals AS t (subscription_item_id, period_start, total, peak)
       VALUES ($1, $2, $3, $3)
       ON CONFLICT (subscription_item_id, period_start) DO UPDATE SET
         total = CASE WHEN $4 = 'set' THEN $3 ELSE t.total + $3 END,
         peak = GREATEST(t.peak, CASE WHEN $4 = 'set' THEN $3 ELSE t.total + $3 END),
         updated_at = now()`,
      [itemId, periodStart, quantity, action],
    );
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
