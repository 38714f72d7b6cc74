import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { UsageRecord } from './usage-record.entity';
import { UsageRecordRepository } from './usage-record.repository';

/** How `usage-records` are found (registered in BillingModule). */
@Injectable()
export class UsageRecordReader implements Reader<UsageRecord> {
  constructor(private readonly records: UsageRecordRepository) {}

  findMany(principal: Principal, ids: number[]): Promise<UsageRecord[]> {
    return this.records.findVisible(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<UsageRecord>> {
    return this.records.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.records.findByFilter(principal, filter, values);
  }
}
