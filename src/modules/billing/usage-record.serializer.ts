import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { UsageRecord } from './usage-record.entity';

/** JSON:API `usage-records`: 5 attributes. */
@Injectable()
export class UsageRecordSerializer implements ResourceType<UsageRecord> {
  readonly type = 'usage-records';
  readonly relationships = {
    'subscription-item': {
      kind: 'one',
      type: 'subscription-items',
      id: (record: UsageRecord) => record.subscriptionItemId,
    },
  } as const;
  readonly list = {
    filters: {
      subscription_item_id: filterParsers.id,
      store_id: filterParsers.id,
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-created_at',
  };

  id(record: UsageRecord) {
    return String(record.id);
  }

  attributes(record: UsageRecord) {
    return {
      subscription_item_id: record.subscriptionItemId,
      quantity: record.quantity,
      action: record.action,
      created_at: formatTimestamp(record.createdAt),
      updated_at: formatTimestamp(record.updatedAt),
    };
  }
}
