import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';

/** Top-level attributes; the three option objects are checked key by key in checkout-input.ts. */
export class CreateCheckoutAttributes {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  custom_price?: number | null;

  @IsOptional()
  product_options?: unknown;

  @IsOptional()
  checkout_options?: unknown;

  @IsOptional()
  checkout_data?: unknown;

  @IsOptional()
  @IsBoolean()
  preview?: boolean;

  @IsOptional()
  @IsBoolean()
  test_mode?: boolean;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  expires_at?: string | null;
}
