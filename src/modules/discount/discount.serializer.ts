import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { DiscountView } from './discount.entity';

const STATUS_LABELS = { draft: 'Draft', published: 'Published' } as const;

/** JSON:API `discounts`: 17 attributes. */
@Injectable()
export class DiscountSerializer implements ResourceType<DiscountView> {
  readonly type = 'discounts';
  readonly relationships = {
    store: { kind: 'one', type: 'stores', id: (d: DiscountView) => d.storeId },
    variants: {
      kind: 'ids',
      type: 'variants',
      ids: (d: DiscountView) => d.variantIds,
    },
    'discount-redemptions': {
      kind: 'many',
      type: 'discount-redemptions',
      filter: 'discount_id',
    },
  } as const;
  readonly list = {
    filters: { store_id: filterParsers.id },
    sorts: ['created_at', 'updated_at', 'name', 'code'],
    defaultSort: 'createdAt',
  };

  id(discount: DiscountView) {
    return String(discount.id);
  }

  attributes(discount: DiscountView) {
    return {
      store_id: discount.storeId,
      name: discount.name,
      code: discount.code,
      amount: discount.amount,
      amount_type: discount.amountType,
      is_limited_to_products: discount.isLimitedToProducts,
      is_limited_redemptions: discount.isLimitedRedemptions,
      max_redemptions: discount.maxRedemptions,
      starts_at: formatTimestamp(discount.startsAt),
      expires_at: formatTimestamp(discount.expiresAt),
      duration: discount.duration,
      duration_in_months: discount.durationInMonths,
      status: discount.status,
      status_formatted: STATUS_LABELS[discount.status],
      created_at: formatTimestamp(discount.createdAt),
      updated_at: formatTimestamp(discount.updatedAt),
      test_mode: discount.testMode,
    };
  }
}
