import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { formatStatus } from './catalog-format';
import { headlineUnitPrice } from './price-rules';
import { VariantView } from './variant.service';

/** JSON:API `variants`: 27 attributes, the last ten deprecated and derived from the current price. */
@Injectable()
export class VariantSerializer implements ResourceType<VariantView> {
  readonly type = 'variants';
  readonly relationships = {
    product: {
      kind: 'one',
      type: 'products',
      id: (variant: VariantView) => variant.productId,
    },
    files: { kind: 'many', type: 'files', filter: 'variant_id' },
    'price-model': {
      kind: 'one',
      type: 'prices',
      id: (variant: VariantView) => variant.currentPriceId,
    },
  } as const;
  readonly list = {
    filters: {
      product_id: filterParsers.id,
      status: filterParsers.oneOf('pending', 'draft', 'published'),
    },
    sorts: ['sort', 'name', 'created_at', 'updated_at'],
    defaultSort: 'sort',
  };

  id(variant: VariantView) {
    return String(variant.id);
  }

  attributes(variant: VariantView) {
    const price = variant.price;
    const subscription = price?.category === 'subscription';
    const pwyw = price?.category === 'pwyw';
    return {
      product_id: variant.productId,
      name: variant.name,
      slug: variant.slug,
      description: variant.description,
      links: variant.links,
      has_license_keys: variant.hasLicenseKeys,
      license_activation_limit: variant.licenseActivationLimit,
      is_license_limit_unlimited: variant.isLicenseLimitUnlimited,
      license_length_value: variant.licenseLengthValue,
      license_length_unit: variant.licenseLengthUnit,
      is_license_length_unlimited: variant.isLicenseLengthUnlimited,
      sort: variant.sort,
      status: variant.status,
      status_formatted: formatStatus(variant.status),
      created_at: formatTimestamp(variant.createdAt),
      updated_at: formatTimestamp(variant.updatedAt),
      test_mode: variant.testMode,
      price: price ? headlineUnitPrice(price) : 0,
      is_subscription: subscription,
      interval: subscription ? price.renewalIntervalUnit : null,
      interval_count: subscription ? price.renewalIntervalQuantity : null,
      has_free_trial: subscription && price.trialIntervalUnit !== null,
      trial_interval: subscription ? price.trialIntervalUnit : null,
      trial_interval_count: subscription ? price.trialIntervalQuantity : null,
      pay_what_you_want: pwyw,
      min_price: pwyw ? (price.minPrice ?? 0) : 0,
      suggested_price: pwyw ? (price.suggestedPrice ?? 0) : 0,
      download_limit: variant.downloadLimit,
      min_quantity: variant.minQuantity,
      max_quantity: variant.maxQuantity,
    };
  }
}
