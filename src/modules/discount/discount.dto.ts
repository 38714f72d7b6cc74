import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';

export class CreateDiscountAttributes {
  @IsString({ message: 'The name is required.' })
  @Length(1, 255, { message: 'The name must be 1 to 255 characters.' })
  name: string;

  @IsString({ message: 'The code is required.' })
  @Matches(/^[A-Z0-9]{3,256}$/, {
    message: 'The code must be 3 to 256 uppercase letters and digits.',
  })
  code: string;

  @IsInt({ message: 'The amount must be an integer.' })
  @Min(0, { message: 'The amount cannot be negative.' })
  @Max(2147483647, { message: 'The amount is too large.' })
  amount: number;

  @IsIn(['percent', 'fixed'], {
    message: 'The amount_type must be percent or fixed.',
  })
  amount_type: 'percent' | 'fixed';

  @IsOptional()
  @IsBoolean({ message: 'is_limited_to_products must be a boolean.' })
  is_limited_to_products?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'is_limited_redemptions must be a boolean.' })
  is_limited_redemptions?: boolean;

  @IsOptional()
  @IsInt({ message: 'max_redemptions must be an integer.' })
  @Min(0, { message: 'max_redemptions cannot be negative.' })
  @Max(2147483647, { message: 'max_redemptions is too large.' })
  max_redemptions?: number;

  // Parsed as timestamps by the service, which names the bad one.
  @IsOptional()
  @IsString({ message: 'starts_at must be an ISO 8601 timestamp or null.' })
  starts_at?: string | null;

  @IsOptional()
  @IsString({ message: 'expires_at must be an ISO 8601 timestamp or null.' })
  expires_at?: string | null;

  @IsOptional()
  @IsIn(['once', 'repeating', 'forever'], {
    message: 'The duration must be once, repeating or forever.',
  })
  duration?: 'once' | 'repeating' | 'forever';

  @IsOptional()
  @IsInt({ message: 'duration_in_months must be an integer.' })
  @Min(1, { message: 'duration_in_months must be at least 1.' })
  @Max(1200, { message: 'duration_in_months must be at most 1200.' })
  duration_in_months?: number;

  @IsOptional()
  @IsBoolean({ message: 'test_mode must be a boolean.' })
  test_mode?: boolean;
}
