import { isCountryCode } from '../../common/country-codes';
import { checkVatNumber, normalizeTaxNumber } from '../tax/vat-number';
import { Customer } from './customer.entity';
import { CustomerChanges } from './customer.repository';
import { CustomerErrors } from './customer.errors';

/** A customer's attributes as the API and the portal write them, checked. */

const MAX_TEXT = 255;
// Deliberately loose (RFC 5322 allows far more); class-validator's IsEmail guards the API.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CustomerUpdate {
  name?: string;
  email?: string;
  city?: string | null;
  region?: string | null;
  country?: string | null;
  status?: string;
  address?: string | null;
  zip?: string | null;
  taxNumber?: string | null;
}

/** The fields a renewal's tax depends on. */
export const BILLING_FIELDS = [
  'country',
  'region',
  'city',
  'zip',
  'address',
  'taxNumber',
] as const;

function requiredText(name: string, value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw CustomerErrors.attributeRequired(name);
  if (trimmed.length > MAX_TEXT)
    throw CustomerErrors.textTooLong(name, MAX_TEXT);
  return trimmed;
}

function optionalText(
  name: string,
  value: string | null | undefined,
  max = MAX_TEXT,
): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  if (trimmed.length > max) throw CustomerErrors.textTooLong(name, max);
  return trimmed || null;
}

function email(value: string): string {
  const trimmed = value.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > MAX_TEXT) {
    throw CustomerErrors.invalidEmail();
  }
  return trimmed;
}

function country(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (!isCountryCode(value)) {
    throw CustomerErrors.invalidCountry();
  }
  return value;
}

/** A new customer's own fields (API or purchase), checked. */
export function newCustomerFields(input: {
  name: string;
  email: string;
  city?: string | null;
  region?: string | null;
  country?: string | null;
}) {
  return {
    name: requiredText('name', input.name),
    email: email(input.email),
    city: optionalText('city', input.city),
    region: optionalText('region', input.region),
    country: country(input.country),
  };
}

export function changesOf(
  customer: Customer,
  input: CustomerUpdate,
): CustomerChanges {
  const changes: CustomerChanges = {};
  if (input.status !== undefined) {
    if (input.status !== 'archived') {
      throw CustomerErrors.onlyArchive();
    }
    changes.status = 'archived';
  }
  if (input.name !== undefined) changes.name = requiredText('name', input.name);
  if (input.email !== undefined) changes.email = email(input.email);
  if (input.city !== undefined) changes.city = optionalText('city', input.city);
  if (input.region !== undefined)
    changes.region = optionalText('region', input.region);
  if (input.country !== undefined) changes.country = country(input.country);
  if (input.address !== undefined)
    changes.address = optionalText('address', input.address, 500);
  if (input.zip !== undefined) changes.zip = optionalText('zip', input.zip, 32);
  if (input.taxNumber !== undefined) {
    const number = optionalText('tax_number', input.taxNumber, 64);
    changes.taxNumber = number ? normalizeTaxNumber(number) || null : null;
  }
  // The number is checked against the country it will be billed in.
  const taxNumber =
    changes.taxNumber !== undefined ? changes.taxNumber : customer.taxNumber;
  const billedIn =
    changes.country !== undefined ? changes.country : customer.country;
  if (
    taxNumber &&
    (changes.taxNumber !== undefined || changes.country !== undefined)
  ) {
    if (!billedIn) throw CustomerErrors.countryRequiredForTaxNumber();
    if (checkVatNumber(billedIn, taxNumber) === 'invalid')
      throw CustomerErrors.invalidTaxNumber(billedIn);
  }
  return changes;
}
