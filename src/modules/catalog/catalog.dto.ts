import { PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { QUANTITY_CEILING } from './quantity-limits';
import type {
  IntervalUnit,
  PriceCategory,
  PriceScheme,
  TaxCode,
  UsageAggregation,
} from './price.entity';

const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true };
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SLUG_MESSAGE =
  'The slug may contain lowercase letters, digits and single dashes.';

export class ProductAttributes {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @IsOptional()
  @IsString()
  @MaxLength(65535)
  description?: string;

  @IsOptional()
  @IsIn(['draft', 'published'])
  status?: 'draft' | 'published';

  @IsOptional()
  @IsString()
  @MaxLength(60)
  @Matches(SLUG, { message: SLUG_MESSAGE })
  slug?: string;

  @IsOptional()
  @IsBoolean()
  pay_what_you_want?: boolean;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  thumb_url?: string | null;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  large_thumb_url?: string | null;
}

/** PATCH: every attribute optional, each still validated when given. */
export class ProductUpdateAttributes extends PartialType(ProductAttributes) {}

export class VariantLinkInput {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  title: string;

  @IsUrl(URL_OPTIONS)
  url: string;
}

export class VariantAttributes {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @IsOptional()
  @IsString()
  @MaxLength(65535)
  description?: string;

  /** `pending` is reserved for a product's default variant (spec 2.4). */
  @IsOptional()
  @IsIn(['draft', 'published'])
  status?: 'draft' | 'published';

  @IsOptional()
  @IsInt()
  @Min(0)
  sort?: number;

  @IsOptional()
  @IsBoolean()
  has_license_keys?: boolean;

  @IsOptional()
  @IsInt()
  @Min(0)
  license_activation_limit?: number;

  @IsOptional()
  @IsBoolean()
  is_license_limit_unlimited?: boolean;

  @IsOptional()
  @IsInt()
  @Min(1)
  license_length_value?: number;

  @IsOptional()
  @IsIn(['days', 'months', 'years'])
  license_length_unit?: 'days' | 'months' | 'years';

  @IsOptional()
  @IsBoolean()
  is_license_length_unlimited?: boolean;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => VariantLinkInput)
  links?: VariantLinkInput[];

  /** Extension: downloads per order item (all files together); null is unlimited. */
  @IsOptional()
  @IsInt()
  @Min(1)
  download_limit?: number | null;

  /** Extension: the fewest units per purchase or subscription item (default 1). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(QUANTITY_CEILING)
  min_quantity?: number;

  /** Extension: the most units per purchase or subscription item (default 1000). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(QUANTITY_CEILING)
  max_quantity?: number;
}

export class VariantUpdateAttributes extends PartialType(VariantAttributes) {}

const INTERVALS = ['day', 'week', 'month', 'year'];

export class PriceAttributes {
  @IsIn(['one_time', 'subscription', 'lead_magnet', 'pwyw'])
  category: PriceCategory;

  @IsOptional()
  @IsIn(['standard', 'package', 'graduated', 'volume'])
  scheme?: PriceScheme;

  @IsOptional()
  @IsInt()
  @Min(0)
  unit_price?: number | null;

  @IsOptional()
  @IsString()
  unit_price_decimal?: string | null;

  @IsOptional()
  @IsIn(INTERVALS)
  renewal_interval_unit?: IntervalUnit | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  renewal_interval_quantity?: number | null;

  @IsOptional()
  @IsIn(INTERVALS)
  trial_interval_unit?: IntervalUnit | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  trial_interval_quantity?: number | null;

  @IsOptional()
  @IsIn(['sum', 'last_during_period', 'last_ever', 'max'])
  usage_aggregation?: UsageAggregation | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  package_size?: number | null;

  @IsOptional()
  @IsArray()
  tiers?: unknown[] | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  min_price?: number | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  suggested_price?: number | null;

  @IsOptional()
  @IsBoolean()
  setup_fee_enabled?: boolean | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  setup_fee?: number | null;

  @IsOptional()
  @IsIn(['eservice', 'ebook', 'saas'])
  tax_code?: TaxCode;
}

export const PRODUCT_CREATE = {
  type: 'products',
  attributes: ProductAttributes,
  relationships: { store: { type: 'stores', required: true } },
};
export const PRODUCT_UPDATE = {
  type: 'products',
  attributes: ProductUpdateAttributes,
  update: true,
};
export const VARIANT_CREATE = {
  type: 'variants',
  attributes: VariantAttributes,
  relationships: { product: { type: 'products', required: true } },
};
export const VARIANT_UPDATE = {
  type: 'variants',
  attributes: VariantUpdateAttributes,
  update: true,
};
export const PRICE_CREATE = {
  type: 'prices',
  attributes: PriceAttributes,
  relationships: { variant: { type: 'variants', required: true } },
};
