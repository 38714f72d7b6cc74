import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import {
  FilterValue,
  filterParsers,
  ListQuery,
} from '../../http/json-api/list-query';
import {
  Page,
  parseIntegerId,
  ResourceType,
} from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { USAGE_RECORD_RENDERER } from './billing.renderers';
import { UsageRecord } from './usage-record.entity';
import { UsageRecordService } from './usage-record.service';

@Injectable()
export class UsageRecordSerializer
  implements ResourceType<UsageRecord>, OnModuleInit
{
  readonly type = USAGE_RECORD_RENDERER.type;
  readonly relationships = USAGE_RECORD_RENDERER.relationships;
  readonly list = {
    filters: {
      subscription_item_id: filterParsers.id,
      store_id: filterParsers.id,
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-created_at',
  };

  constructor(
    private readonly usage: UsageRecordService,
    private readonly jsonApi: JsonApi,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: UsageRecord) {
    return USAGE_RECORD_RENDERER.id(record);
  }

  attributes(record: UsageRecord) {
    return USAGE_RECORD_RENDERER.attributes(record);
  }

  async findOne(principal: Principal, id: string) {
    const recordId = parseIntegerId(id);
    if (recordId === null) return null;
    const [record] = await this.usage.findMany(principal, [recordId]);
    return record ?? null;
  }

  findMany(principal: Principal, ids: string[]) {
    return this.usage.findMany(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<UsageRecord>> {
    return this.usage.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.usage.findByFilter(principal, filter, values);
  }
}
