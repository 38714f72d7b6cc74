import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers, FilterValue } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { formatTimestamp } from '../../common/timestamps';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { Webhook } from './webhook.entity';
import { WebhookService } from './webhook.service';

/** JSON:API `webhooks`: 7 attributes; the secret is write-only and never rendered. */
@Injectable()
export class WebhookSerializer
  extends IntegerIdFinders<Webhook>
  implements ResourceType<Webhook>, OnModuleInit
{
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
  ) {
    super(webhooks);
  }

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

  override findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<Webhook[]> {
    if (filter !== 'store_id')
      throw new Error(`webhooks cannot be listed by ${filter}`);
    return this.webhooks.findByStores(principal, values);
  }
}
