import { PartialType } from '@nestjs/swagger';
import {
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';

/** Formats (ISO codes, slug, host name) are checked by the service, which owns the rules. */
export class StoreAttributes {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @IsOptional()
  @IsString()
  slug?: string;

  @IsOptional()
  @IsString()
  @MaxLength(253)
  domain?: string | null;

  @IsOptional()
  @IsString()
  currency?: string;

  @IsOptional()
  @IsString()
  country?: string;

  /** Extension: the From of the store's e-mail; null for MAIL_FROM. */
  @IsOptional()
  @IsString()
  @MaxLength(320)
  mail_from?: string | null;

  /** Extension: the Reply-To of the store's e-mail; null for none. */
  @IsOptional()
  @IsString()
  @MaxLength(320)
  mail_reply_to?: string | null;

  /** Extension: the kinds of e-mail the store does not send, e.g. ["order_receipt"]. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  mail_disabled_kinds?: string[];

  /** Extension: whether prices include tax; null for TAX_INCLUSIVE. */
  @IsOptional()
  @IsBoolean()
  tax_inclusive?: boolean | null;

  /** Extension: the countries the store charges tax in (EU: all 27); null for everywhere. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tax_registrations?: string[] | null;

  /** Extension: who computes the store's tax: builtin (default) or stripe (Stripe Tax; needs the store's Stripe account of the mode). */
  @IsOptional()
  @IsString()
  tax_provider?: string;
  /** Extension: the seller's legal name on receipts and invoices; null for the store name. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  legal_name?: string | null;

  /** Extension: the seller's postal address ({lines, city, state, postcode, country}); the service checks it. */
  @IsOptional()
  legal_address?: unknown;

  /** Extension: VAT/GST registration numbers by country ({"FR": "FR…"}); the service checks them. */
  @IsOptional()
  tax_numbers?: unknown;
}

export class StoreUpdateAttributes extends PartialType(StoreAttributes) {
  /**
   * Write-only: the store's Stripe account for the API key's mode
   * (`secret_key`, `publishable_key`, `webhook_secret`), or null to
   * disconnect it. The service checks the keys.
   */
  @IsOptional()
  @IsObject()
  stripe?: Record<string, unknown> | null;
}

export const STORE_CREATE = { type: 'stores', attributes: StoreAttributes };
export const STORE_UPDATE = {
  type: 'stores',
  attributes: StoreUpdateAttributes,
  update: true,
};
