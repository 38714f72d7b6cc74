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
const EMAIL_MESSAGE = 'The email must be a valid address.';

/** POST /v1/customers attributes (spec 4.5). */
export class CreateCustomerAttributes {
  @IsString({ message: 'The name must be a string.' })
  @MaxLength(255, { message: 'The name may be at most 255 characters.' })
  name: string;

  @IsString({ message: 'The email must be a string.' })
  @IsEmail({}, { message: EMAIL_MESSAGE })
  @MaxLength(255, { message: 'The email may be at most 255 characters.' })
  email: string;

  @IsOptional()
  @IsString({ message: 'The city must be a string.' })
  city?: string | null;

  @IsOptional()
  @IsString({ message: 'The region must be a string.' })
  region?: string | null;

  @IsOptional()
  @IsString({ message: COUNTRY_MESSAGE })
  @Matches(/^[A-Z]{2}$/, { message: COUNTRY_MESSAGE })
  country?: string | null;
}

/** PATCH /v1/customers/:id attributes; absent means unchanged, null clears an optional field. */
export class UpdateCustomerAttributes {
  @ValidateIf((_, value) => value !== undefined)
  @IsString({ message: 'The name must be a string.' })
  @MaxLength(255, { message: 'The name may be at most 255 characters.' })
  name?: string;

  @ValidateIf((_, value) => value !== undefined)
  @IsString({ message: 'The email must be a string.' })
  @IsEmail({}, { message: EMAIL_MESSAGE })
  @MaxLength(255, { message: 'The email may be at most 255 characters.' })
  email?: string;

  @IsOptional()
  @IsString({ message: 'The city must be a string.' })
  city?: string | null;

  @IsOptional()
  @IsString({ message: 'The region must be a string.' })
  region?: string | null;

  @IsOptional()
  @IsString({ message: COUNTRY_MESSAGE })
  @Matches(/^[A-Z]{2}$/, { message: COUNTRY_MESSAGE })
  country?: string | null;

  // Checked by the service, so any other value gets the spec's explanation.
  @ValidateIf((_, value) => value !== undefined)
  @IsString({ message: 'The status can only be set to archived.' })
  status?: string;
}
