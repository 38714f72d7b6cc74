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
  @IsString()
  @Length(1, 255)
  name: string;

  @IsString()
  @Matches(/^[A-Z0-9]{3,256}$/, {
    message: 'The code must be 3 to 256 uppercase letters and digits.',
  })
  code: string;

  // Money is a positive integer (spec); a percent is 1–100 (the service).
  @IsInt()
  @Min(1)
  @Max(2147483647)
  amount: number;

  @IsIn(['percent', 'fixed'])
  amount_type: 'percent' | 'fixed';

  @IsOptional()
  @IsBoolean()
  is_limited_to_products?: boolean;

  @IsOptional()
  @IsBoolean()
  is_limited_redemptions?: boolean;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  max_redemptions?: number;

  // Parsed as timestamps by the service, which names the bad one.
  @IsOptional()
  @IsString()
  starts_at?: string | null;

  @IsOptional()
  @IsString()
  expires_at?: string | null;

  @IsOptional()
  @IsIn(['once', 'repeating', 'forever'])
  duration?: 'once' | 'repeating' | 'forever';

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1200)
  duration_in_months?: number;

  @IsOptional()
  @IsBoolean()
  test_mode?: boolean;
}
