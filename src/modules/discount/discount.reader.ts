import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { DiscountRedemption } from './discount-redemption.entity';
import { DiscountView } from './discount.entity';
import { DiscountRepository } from './discount.repository';

/** How `discounts` are found (registered in DiscountModule). */
@Injectable()
export class DiscountReader implements Reader<DiscountView> {
  constructor(private readonly discounts: DiscountRepository) {}

  findMany(principal: Principal, ids: number[]): Promise<DiscountView[]> {
    return this.discounts.findVisible(principal, ids);
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<DiscountView>> {
    return this.discounts.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    if (filter !== 'store_id')
      throw new Error(`discounts cannot be listed by ${filter}`);
    return this.discounts.findByStores(principal, values);
  }
}

/** How `discount-redemptions` are found (registered in DiscountModule). */
@Injectable()
export class DiscountRedemptionReader implements Reader<DiscountRedemption> {
  constructor(private readonly discounts: DiscountRepository) {}

  findMany(principal: Principal, ids: number[]) {
    return this.discounts.findRedemptions(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery) {
    return this.discounts.findRedemptionPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    if (filter !== 'discount_id' && filter !== 'order_id')
      throw new Error(`discount-redemptions cannot be listed by ${filter}`);
    return this.discounts.findRedemptionsBy(principal, filter, values);
  }
}
