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
  @IsInt({ message: 'custom_price must be an integer number of cents.' })
  @Min(0, { message: 'custom_price cannot be negative.' })
  @Max(2147483647, { message: 'custom_price is too large.' })
  custom_price?: number | null;

  @IsOptional()
  product_options?: unknown;

  @IsOptional()
  checkout_options?: unknown;

  @IsOptional()
  checkout_data?: unknown;

  @IsOptional()
  @IsBoolean({ message: 'preview must be a boolean.' })
  preview?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'test_mode must be a boolean.' })
  test_mode?: boolean;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString({ message: 'expires_at must be an ISO 8601 timestamp or null.' })
  expires_at?: string | null;
}
