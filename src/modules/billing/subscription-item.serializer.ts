import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { SUBSCRIPTION_ITEM_RENDERER } from './billing.renderers';
import { SubscriptionItem } from './subscription-item.entity';
import { SubscriptionItemService } from './subscription-item.service';

@Injectable()
export class SubscriptionItemSerializer
  extends IntegerIdFinders<SubscriptionItem>
  implements ResourceType<SubscriptionItem>, OnModuleInit
{
  readonly type = SUBSCRIPTION_ITEM_RENDERER.type;
  readonly relationships = SUBSCRIPTION_ITEM_RENDERER.relationships;
  readonly list = {
    filters: {
      subscription_id: filterParsers.id,
      price_id: filterParsers.id,
      store_id: filterParsers.id,
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-created_at',
  };

  constructor(
    items: SubscriptionItemService,
    private readonly jsonApi: JsonApi,
  ) {
    super(items);
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: SubscriptionItem) {
    return SUBSCRIPTION_ITEM_RENDERER.id(record);
  }

  attributes(record: SubscriptionItem) {
    return SUBSCRIPTION_ITEM_RENDERER.attributes(record);
  }
}
