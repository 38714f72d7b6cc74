import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { SUBSCRIPTION_RENDERER } from './billing.renderers';
import { SubscriptionView } from './billing-views';
import { SubscriptionService } from './subscription.service';
import { SUBSCRIPTION_STATUSES } from './subscription.state';

@Injectable()
export class SubscriptionSerializer
  extends IntegerIdFinders<SubscriptionView>
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
      user_email: filterParsers.email,
      status: filterParsers.oneOf(...SUBSCRIPTION_STATUSES),
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-createdAt',
  };

  constructor(
    subscriptions: SubscriptionService,
    private readonly jsonApi: JsonApi,
  ) {
    super(subscriptions);
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: SubscriptionView) {
    return SUBSCRIPTION_RENDERER.id(record);
  }

  attributes(record: SubscriptionView) {
    return SUBSCRIPTION_RENDERER.attributes(record);
  }
}
