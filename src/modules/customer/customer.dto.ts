import {
  IsEmail,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';

const COUNTRY_MESSAGE =
  'The country must be an ISO 3166-1 alpha-2 code in capitals, such as US.';

/** POST /v1/customers attributes (spec 4.5). */
export class CreateCustomerAttributes {
  @IsString()
  @MaxLength(255)
  name: string;

  @IsString()
  @IsEmail()
  @MaxLength(255)
  email: string;

  @IsOptional()
  @IsString()
  city?: string | null;

  @IsOptional()
  @IsString()
  region?: string | null;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: COUNTRY_MESSAGE })
  country?: string | null;
}

/** PATCH /v1/customers/:id attributes; absent means unchanged, null clears an optional field. */
export class UpdateCustomerAttributes {
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @MaxLength(255)
  name?: string;

  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @IsEmail()
  @MaxLength(255)
  email?: string;

  @IsOptional()
  @IsString()
  city?: string | null;

  @IsOptional()
  @IsString()
  region?: string | null;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: COUNTRY_MESSAGE })
  country?: string | null;

  /** Extension: street address (a newline between two lines). */
  @IsOptional()
  @IsString()
  address?: string | null;

  /** Extension: postal code. */
  @IsOptional()
  @IsString()
  zip?: string | null;

  /** Extension: VAT or other tax number, checked for the billing country. */
  @IsOptional()
  @IsString()
  tax_number?: string | null;

  // Checked by the service, so any other string gets the spec's explanation.
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  status?: string;
}
