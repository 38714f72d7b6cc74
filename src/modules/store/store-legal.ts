import { isCountryCode } from '../../common/country-codes';
import {
  countryName,
  formatPostalAddress,
  PostalAddress,
} from '../../common/postal-address';
import { EU_COUNTRIES } from '../tax/digital-rules';
import {
  checkVatNumber,
  normalizeTaxNumber,
  takesVatNumbers,
} from '../tax/vat-number';
import { StoreErrors } from './store.errors';

/** The store's postal address as stored and as the API shows it (`legal_address`). */
export interface LegalAddress {
  lines: string[];
  city: string | null;
  state: string | null;
  postcode: string | null;
  country: string;
}

/** The store's tax registration numbers by ISO country code (`tax_numbers`). */
export type TaxNumbers = Record<string, string>;

/** What a receipt or invoice prints as the seller. */
export interface Seller {
  /** The legal name, else the store's name. */
  name: string;
  /** The address formatted for its country, with the country last; empty when none is set. */
  address: string[];
  /** The registration number that applies to the sale, with its label ("VAT number"). */
  taxNumber: { label: string; number: string } | null;
}

const GST_COUNTRIES = new Set(['AU', 'NZ', 'CA', 'SG', 'IN', 'MY']);
const VAT_COUNTRIES = new Set(['GB', 'NO', 'CH', 'IS', 'LI']);

/** "VAT number" in Europe, "GST number" where the tax is GST, "Tax number" elsewhere. */
export function taxNumberLabel(country: string): string {
  if (EU_COUNTRIES.has(country) || VAT_COUNTRIES.has(country))
    return 'VAT number';
  if (GST_COUNTRIES.has(country)) return 'GST number';
  return 'Tax number';
}

function text(value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw StoreErrors.invalidLegalAddress();
  const trimmed = value.replace(/\s+/g, ' ').trim();
  if (trimmed.length > max) throw StoreErrors.invalidLegalAddress();
  return trimmed || null;
}

/**
 * `legal_address` as written: `lines` (1–3 street lines), `city`, `state`,
 * `postcode` (each optional) and `country` (ISO 3166-1 alpha-2, required).
 * Unknown keys, wrong types and over-long values are a 422.
 */
export function checkLegalAddress(input: unknown): LegalAddress {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw StoreErrors.invalidLegalAddress();
  const raw = input as Record<string, unknown>;
  const known = ['lines', 'city', 'state', 'postcode', 'country'];
  if (Object.keys(raw).some((key) => !known.includes(key)))
    throw StoreErrors.invalidLegalAddress();
  const lines = raw.lines ?? [];
  if (!Array.isArray(lines) || lines.length > 3)
    throw StoreErrors.invalidLegalAddress();
  const country =
    typeof raw.country === 'string' ? raw.country.trim().toUpperCase() : '';
  if (!isCountryCode(country)) throw StoreErrors.invalidLegalAddress();
  return {
    lines: lines
      .map((line) => text(line, 200))
      .filter((line): line is string => line !== null),
    city: text(raw.city, 100),
    state: text(raw.state, 100),
    postcode: text(raw.postcode, 20),
    country,
  };
}

/**
 * `tax_numbers` as written: `{ "FR": "FR40303265045", "GB": "GB…" }`. Keys
 * are ISO country codes; an EU or UK number must pass the offline VAT check
 * for its country (jsvat, as buyers' numbers do); others are 3–30 letters,
 * digits, spaces, dots or dashes (an ABN, a GST/HST number…). Numbers are
 * kept normalised (upper case, no spaces, dots or dashes).
 */
export function checkTaxNumbers(input: unknown): TaxNumbers {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw StoreErrors.invalidTaxNumbers();
  const numbers: TaxNumbers = {};
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > 60) throw StoreErrors.invalidTaxNumbers();
  for (const [key, value] of entries) {
    const country = key.trim().toUpperCase();
    if (!isCountryCode(country) || typeof value !== 'string')
      throw StoreErrors.invalidTaxNumbers();
    const number = normalizeTaxNumber(value);
    if (takesVatNumbers(country)) {
      if (checkVatNumber(country, number) !== 'valid')
        throw StoreErrors.invalidTaxNumber(country);
    } else if (!/^[A-Z0-9]{3,30}$/.test(number)) {
      throw StoreErrors.invalidTaxNumber(country);
    }
    numbers[country] = number;
  }
  return numbers;
}

/**
 * The seller block of a sale to a buyer in `saleCountry`: the legal name
 * and address, and the registration number for the buyer's country (a
 * store registered there, e.g. for UK VAT, prints that one), else the
 * store's home number (under the EU One-Stop Shop the home number is the
 * one an EU invoice carries).
 */
export function sellerOf(
  store: {
    name: string;
    country: string;
    legalName: string | null;
    legalAddress: LegalAddress | null;
    taxNumbers: TaxNumbers | null;
  },
  saleCountry: string | null,
): Seller {
  const numbers = store.taxNumbers ?? {};
  const country =
    saleCountry && numbers[saleCountry] ? saleCountry : store.country;
  const number = numbers[country];
  return {
    name: store.legalName ?? store.name,
    address: store.legalAddress
      ? formatPostalAddress(store.legalAddress satisfies PostalAddress)
      : [],
    taxNumber: number ? { label: taxNumberLabel(country), number } : null,
  };
}

/**
 * The seller block as lines under the seller's name: the address in its
 * country's format (the store's country alone when no address is set), the
 * registration number that applies ("VAT number: FR…"), then the domain.
 */
export function sellerLines(
  store: Parameters<typeof sellerOf>[0] & { domain: string | null },
  saleCountry: string | null,
): { name: string; lines: string[] } {
  const seller = sellerOf(store, saleCountry);
  const address =
    seller.address.length > 0 ? seller.address : [countryName(store.country)];
  return {
    name: seller.name,
    lines: [
      ...address,
      ...(seller.taxNumber
        ? [`${seller.taxNumber.label}: ${seller.taxNumber.number}`]
        : []),
      store.domain ?? '',
    ].filter((line) => line !== ''),
  };
}

/** The buyer's tax number as printed under their address ("VAT number: DE…"); null without one. */
export function buyerTaxNumberLine(
  country: string | null,
  taxNumber: string | null | undefined,
): string | null {
  if (!taxNumber) return null;
  return `${taxNumberLabel((country ?? '').toUpperCase())}: ${taxNumber}`;
}
