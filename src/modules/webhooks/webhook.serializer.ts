import { Injectable, OnModuleInit } from '@nestjs/common';
import { formatTimestamp } from '../../common/timestamps';
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
import { Webhook } from './webhook.entity';
import { WebhookService } from './webhook.service';

/** JSON:API `webhooks`: 7 attributes; the secret is write-only and never rendered. */
@Injectable()
export class WebhookSerializer implements ResourceType<Webhook>, OnModuleInit {
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

  constructor(
    private readonly webhooks: WebhookService,
    private readonly jsonApi: JsonApi,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

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

  findOne(principal: Principal, id: string) {
    const webhookId = parseIntegerId(id);
    return webhookId === null
      ? Promise.resolve(null)
      : this.webhooks.findOne(principal, webhookId);
  }

  findMany(principal: Principal, ids: string[]) {
    return this.webhooks.findMany(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<Webhook>> {
    return this.webhooks.findPage(principal, query);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<Webhook[]> {
    if (filter !== 'store_id')
      throw new Error(`webhooks cannot be listed by ${filter}`);
    return this.webhooks.findByStores(principal, values);
  }
}
