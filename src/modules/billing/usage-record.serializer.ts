import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { USAGE_RECORD_RENDERER } from './billing.renderers';
import { UsageRecord } from './usage-record.entity';
import { UsageRecordService } from './usage-record.service';

@Injectable()
export class UsageRecordSerializer
  extends IntegerIdFinders<UsageRecord>
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
    usage: UsageRecordService,
    private readonly jsonApi: JsonApi,
  ) {
    super(usage);
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: UsageRecord) {
    return USAGE_RECORD_RENDERER.id(record);
  }

  attributes(record: UsageRecord) {
    return USAGE_RECORD_RENDERER.attributes(record);
  }
}
