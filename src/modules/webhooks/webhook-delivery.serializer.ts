import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  filterParsers,
  FilterValue,
  ListQuery,
  Page,
  pageOrNothing,
} from '../../common/list-query';
import { Principal } from '../../common/principal';
import { formatTimestamp } from '../../common/timestamps';
import { JsonApi } from '../../http/json-api/json-api.service';
import { ResourceType } from '../../http/json-api/resource';
import {
  DeliveryView,
  WebhookDeliveryRepository,
} from './webhook-delivery.repository';

const STATUS_FORMATTED = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
} as const;

/**
 * JSON:API `webhook-deliveries` (beyond the reference): one event sent to one
 * webhook, with its state and every attempt, for debugging integrations.
 */
@Injectable()
export class WebhookDeliverySerializer
  implements ResourceType<DeliveryView>, OnModuleInit
{
  readonly type = 'webhook-deliveries';
  readonly relationships = {
    webhook: {
      kind: 'one',
      type: 'webhooks',
      id: (delivery: DeliveryView) => delivery.webhookId,
    },
  } as const;
  readonly list = {
    filters: {
      webhook_id: filterParsers.id,
      status: filterParsers.oneOf('pending', 'succeeded', 'failed'),
    },
    sorts: ['created_at', 'updated_at'],
    defaultSort: '-createdAt',
  };

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly jsonApi: JsonApi,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(delivery: DeliveryView) {
    return delivery.id;
  }

  attributes(delivery: DeliveryView) {
    return {
      webhook_id: delivery.webhookId,
      event_id: Number(delivery.eventId),
      event_name: delivery.eventName,
      status: delivery.status,
      status_formatted: STATUS_FORMATTED[delivery.status],
      attempts: delivery.attempts,
      last_response_code: delivery.lastResponseCode,
      next_attempt_at: formatTimestamp(delivery.nextAttemptAt),
      last_attempt_at: formatTimestamp(delivery.lastAttemptAt),
      delivered_at: formatTimestamp(delivery.deliveredAt),
      attempt_log: delivery.attemptLog.map((a) => ({
        attempt: a.attempt,
        status: a.status,
        response_code: a.responseCode,
        error: a.error,
        duration_ms: a.durationMs,
        started_at: formatTimestamp(a.startedAt),
        finished_at: formatTimestamp(a.finishedAt),
      })),
      created_at: formatTimestamp(delivery.createdAt),
      updated_at: formatTimestamp(delivery.updatedAt),
      test_mode: delivery.testMode,
    };
  }

  // Delivery ids are bigints, beyond parseIntegerId's int4 range.
  async findOne(principal: Principal, id: string) {
    if (!/^[1-9]\d{0,17}$/.test(id)) return null;
    const [delivery] = await this.deliveries.findVisible(principal, [id]);
    return delivery ?? null;
  }

  findMany(principal: Principal, ids: string[]) {
    return this.deliveries.findVisible(
      principal,
      ids.filter((id) => /^[1-9]\d{0,17}$/.test(id)),
    );
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<DeliveryView>> {
    return pageOrNothing(query, () =>
      this.deliveries.findPage(principal, query),
    );
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<DeliveryView[]> {
    if (filter !== 'webhook_id')
      throw new Error(`webhook-deliveries cannot be listed by ${filter}`);
    return this.deliveries.findByWebhooks(principal, values.map(Number));
  }
}
