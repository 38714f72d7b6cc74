import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { Price } from './price.entity';

/** JSON:API `prices`: 19 attributes, no `test_mode` (reference section 4). */
@Injectable()
export class PriceSerializer implements ResourceType<Price> {
  readonly type = 'prices';
  readonly relationships = {
    variant: {
      kind: 'one',
      type: 'variants',
      id: (price: Price) => price.variantId,
    },
  } as const;
  readonly list = {
    filters: { variant_id: filterParsers.id },
    sorts: ['created_at', 'updated_at'],
    defaultSort: '-created_at',
  };

  id(price: Price) {
    return String(price.id);
  }

  attributes(price: Price) {
    return {
      variant_id: price.variantId,
      category: price.category,
      scheme: price.scheme,
      usage_aggregation: price.usageAggregation,
      unit_price: price.unitPrice,
      unit_price_decimal: price.unitPriceDecimal,
      setup_fee_enabled: price.setupFeeEnabled,
      setup_fee: price.setupFee,
      package_size: price.packageSize,
      tiers: price.tiers,
      renewal_interval_unit: price.renewalIntervalUnit,
      renewal_interval_quantity: price.renewalIntervalQuantity,
      trial_interval_unit: price.trialIntervalUnit,
      trial_interval_quantity: price.trialIntervalQuantity,
      min_price: price.minPrice,
      suggested_price: price.suggestedPrice,
      tax_code: price.taxCode,
      created_at: formatTimestamp(price.createdAt),
      updated_at: formatTimestamp(price.updatedAt),
    };
  }
}
