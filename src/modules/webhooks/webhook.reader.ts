import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import {
  DeliveryView,
  WebhookDeliveryRepository,
} from './webhook-delivery.repository';
import { Webhook } from './webhook.entity';
import { WebhookRepository } from './webhook.repository';

/** How `webhooks` are found (registered in WebhooksModule). */
@Injectable()
export class WebhookReader implements Reader<Webhook> {
  constructor(private readonly webhooks: WebhookRepository) {}

  findMany(principal: Principal, ids: number[]): Promise<Webhook[]> {
    return this.webhooks.findVisible(principal, ids);
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

/** A delivery id: a bigint, beyond parseIntegerId's int4 range. */
export const parseDeliveryId = (raw: string): string | null =>
  /^[1-9]\d{0,17}$/.test(raw) ? raw : null;

/** How `webhook-deliveries` are found (registered in WebhooksModule). */
@Injectable()
export class WebhookDeliveryReader implements Reader<DeliveryView, string> {
  constructor(private readonly deliveries: WebhookDeliveryRepository) {}

  findMany(principal: Principal, ids: string[]): Promise<DeliveryView[]> {
    return this.deliveries.findVisible(principal, ids);
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<DeliveryView>> {
    return this.deliveries.findPage(principal, query);
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
