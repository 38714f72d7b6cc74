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
import { SUBSCRIPTION_RENDERER } from './billing.renderers';
import { SubscriptionView } from './billing-views';
import { SubscriptionService } from './subscription.service';
import { SUBSCRIPTION_STATUSES } from './subscription.state';

@Injectable()
export class SubscriptionSerializer
  implements ResourceType<SubscriptionView>, OnModuleInit
{
  readonly type = SUBSCRIPTION_RENDERER.type;
  readonly relationships = SUBSCRIPTION_RENDERER.relationships;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      order_id: filterParsers.id,
      order_item_id: filterParsers.id,
      product_id: filterParsers.id,
      variant_id: filterParsers.id,
      customer_id: filterParsers.id,
      user_email: filterParsers.string,
      status: filterParsers.oneOf(...SUBSCRIPTION_STATUSES),
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-createdAt',
  };

  constructor(
    private readonly subscriptions: SubscriptionService,
    private readonly jsonApi: JsonApi,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: SubscriptionView) {
    return SUBSCRIPTION_RENDERER.id(record);
  }

  attributes(record: SubscriptionView) {
    return SUBSCRIPTION_RENDERER.attributes(record);
  }

  findOne(principal: Principal, id: string) {
    const subscriptionId = parseIntegerId(id);
    return subscriptionId === null
      ? Promise.resolve(null)
      : this.subscriptions.findOne(principal, subscriptionId);
  }

  findMany(principal: Principal, ids: string[]) {
    return this.subscriptions.findMany(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<SubscriptionView>> {
    return this.subscriptions.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.subscriptions.findByFilter(principal, filter, values);
  }
}
