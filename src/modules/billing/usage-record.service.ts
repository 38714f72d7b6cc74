import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { parseIntegerId } from '../../common/ids';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { UsageRecordAttributes } from './billing.dto';
import { UsageRecord } from './usage-record.entity';
import { UsageRecordRepository } from './usage-record.repository';
import { BillingErrors } from './billing.errors';

/** Usage records: reporting metered usage and reading it back. */
@Injectable()
export class UsageRecordService {
  constructor(
    private readonly records: UsageRecordRepository,
    private readonly clock: Clock,
  ) {}

  findMany(principal: Principal, ids: number[]) {
    return this.records.findVisible(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<UsageRecord>> {
    return this.records.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.records.findByFilter(principal, filter, values);
  }

  /**
   * POST: the record and its period's totals, written atomically with the
   * subscription share-locked (see UsageRecordRepository.post); refused
   * without writing anything when the item is not usage-based or its
   * subscription has ended.
   */
  async create(
    principal: Principal,
    input: UsageRecordAttributes,
    itemIdRaw: string,
  ): Promise<UsageRecord> {
    const itemId = parseIntegerId(itemIdRaw);
    const { target, record } =
      itemId === null
        ? { target: null, record: null }
        : await this.records.post(
            principal,
            itemId,
            input.action ?? 'increment',
            input.quantity,
            this.clock.now(),
          );
    if (!target) throw BillingErrors.subscriptionItemNotFound();
    if (!target.isUsageBased) {
      throw BillingErrors.notUsageBased();
    }
    if (!record) {
      throw BillingErrors.usageNotAccepted(target.subscriptionStatus);
    }
    return record;
  }
}
