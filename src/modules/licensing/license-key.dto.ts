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
  @IsInt({ message: 'The activation_limit must be an integer or null.' })
  @Min(0, { message: 'The activation_limit may not be negative.' })
  @Max(2147483647, { message: 'The activation_limit is too large.' })
  activation_limit?: number | null;

  @IsOptional()
  @IsString({
    message:
      'The expires_at must be an ISO 8601 date-time with a time zone, or null.',
  })
  expires_at?: string | null;

  // null is not "unchanged": only true or false may be sent.
  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean({ message: 'The disabled attribute must be true or false.' })
  disabled?: boolean;
}
