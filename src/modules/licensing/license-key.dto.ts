import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';

/** PATCH /v1/license-keys/:id attributes; absent = unchanged, null = unlimited / perpetual. */
export class UpdateLicenseKeyAttributes {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  activation_limit?: number | null;

  @IsOptional()
  @IsString()
  expires_at?: string | null;

  // null is not "unchanged": only true or false may be sent.
  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean()
  disabled?: boolean;
}
