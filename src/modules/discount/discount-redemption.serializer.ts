import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers, FilterValue } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { formatTimestamp } from '../../common/timestamps';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { DiscountRedemption } from './discount-redemption.entity';
import { DiscountService } from './discount.service';

/** JSON:API `discount-redemptions`: 9 attributes, no `test_mode` (as upstream). */
@Injectable()
export class DiscountRedemptionSerializer
  extends IntegerIdFinders<DiscountRedemption>
  implements ResourceType<DiscountRedemption>, OnModuleInit
{
  readonly type = 'discount-redemptions';
  readonly relationships = {
    discount: {
      kind: 'one',
      type: 'discounts',
      id: (r: DiscountRedemption) => r.discountId,
    },
    order: {
      kind: 'one',
      type: 'orders',
      id: (r: DiscountRedemption) => r.orderId,
    },
  } as const;
  readonly list = {
    filters: { discount_id: filterParsers.id, order_id: filterParsers.id },
    sorts: ['created_at', 'updated_at'],
    defaultSort: '-createdAt',
  };

  constructor(
    private readonly discounts: DiscountService,
    private readonly jsonApi: JsonApi,
  ) {
    // DiscountService serves two resource types; these are its finders for this one.
    super({
      findMany: (principal, ids) => discounts.findRedemptions(principal, ids),
      findPage: (principal, query) =>
        discounts.findRedemptionPage(principal, query),
    });
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(redemption: DiscountRedemption) {
    return String(redemption.id);
  }

  attributes(redemption: DiscountRedemption) {
    return {
      discount_id: redemption.discountId,
      order_id: redemption.orderId,
      discount_name: redemption.discountName,
      discount_code: redemption.discountCode,
      discount_amount: redemption.discountAmount,
      discount_amount_type: redemption.discountAmountType,
      amount: redemption.amount,
      created_at: formatTimestamp(redemption.createdAt),
      updated_at: formatTimestamp(redemption.updatedAt),
    };
  }

  override findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ) {
    if (filter !== 'discount_id' && filter !== 'order_id')
      throw new Error(`discount-redemptions cannot be listed by ${filter}`);
    return this.discounts.findRedemptionsBy(principal, filter, values);
  }
}
