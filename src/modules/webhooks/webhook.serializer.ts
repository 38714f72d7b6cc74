import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { Webhook } from './webhook.entity';

/** JSON:API `webhooks`: 7 attributes; the secret is write-only and never rendered. */
@Injectable()
export class WebhookSerializer implements ResourceType<Webhook> {
  readonly type = 'webhooks';
  readonly relationships = {
    store: {
      kind: 'one',
      type: 'stores',
      id: (webhook: Webhook) => webhook.storeId,
    },
  } as const;
  readonly list = {
    filters: { store_id: filterParsers.id },
    sorts: ['created_at', 'updated_at'],
    defaultSort: 'createdAt',
  };

  id(webhook: Webhook) {
    return String(webhook.id);
  }

  attributes(webhook: Webhook) {
    return {
      store_id: webhook.storeId,
      url: webhook.url,
      events: webhook.events,
      last_sent_at: formatTimestamp(webhook.lastSentAt),
      created_at: formatTimestamp(webhook.createdAt),
      updated_at: formatTimestamp(webhook.updatedAt),
      test_mode: webhook.testMode,
    };
  }
}
