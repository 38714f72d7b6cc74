import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { DeliveryView } from './webhook-delivery.repository';

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
export class WebhookDeliverySerializer implements ResourceType<DeliveryView> {
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
}
