import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { DiscountRedemption } from './discount-redemption.entity';

/** JSON:API `discount-redemptions`: 9 attributes, no `test_mode` (as upstream). */
@Injectable()
export class DiscountRedemptionSerializer implements ResourceType<DiscountRedemption> {
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
}
