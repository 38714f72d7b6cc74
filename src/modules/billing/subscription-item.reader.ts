import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { SubscriptionItem } from './subscription-item.entity';
import { SubscriptionRepository } from './subscription.repository';

/** How `subscription-items` are found (registered in BillingModule). */
@Injectable()
export class SubscriptionItemReader implements Reader<SubscriptionItem> {
  constructor(private readonly subscriptions: SubscriptionRepository) {}

  findMany(principal: Principal, ids: number[]): Promise<SubscriptionItem[]> {
    return this.subscriptions.findVisibleItems(principal, ids);
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<SubscriptionItem>> {
    return this.subscriptions.findItemPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.subscriptions.findItemsByFilter(principal, filter, values);
  }
}
