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
import { SUBSCRIPTION_ITEM_RENDERER } from './billing.renderers';
import { SubscriptionItem } from './subscription-item.entity';
import { SubscriptionItemService } from './subscription-item.service';

@Injectable()
export class SubscriptionItemSerializer
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
    private readonly items: SubscriptionItemService,
    private readonly jsonApi: JsonApi,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: SubscriptionItem) {
    return SUBSCRIPTION_ITEM_RENDERER.id(record);
  }

  attributes(record: SubscriptionItem) {
    return SUBSCRIPTION_ITEM_RENDERER.attributes(record);
  }

  async findOne(principal: Principal, id: string) {
    const itemId = parseIntegerId(id);
    if (itemId === null) return null;
    const [item] = await this.items.findMany(principal, [itemId]);
    return item ?? null;
  }

  findMany(principal: Principal, ids: string[]) {
    return this.items.findMany(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<SubscriptionItem>> {
    return this.items.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.items.findByFilter(principal, filter, values);
  }
}
