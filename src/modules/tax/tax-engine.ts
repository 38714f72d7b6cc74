import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { EU_COUNTRIES } from './digital-rules';
import { buyerRegion } from './regions';
import { registeredFor } from './registrations';
import { TaxCode, TAX_PROVIDER, type TaxProvider } from './tax-provider';
import { TaxErrors } from './tax.errors';
import { VIES_CLIENT, ViesClient } from './vies-client';
import {
  checkVatNumber,
  normalizeTaxNumber,
  TaxNumberCheck,
} from './vat-number';

/** The store's tax settings (extension attributes of the store). */
export interface StoreTaxSettings {
  country: string;
  /** Null: the deployment's TAX_INCLUSIVE. */
  taxInclusive: boolean | null;
  /** Null: tax wherever the rules require; else only in these (EU: the One-Stop Shop). */
  taxRegistrations: string[] | null;
}

export interface TaxRequest {
  store: StoreTaxSettings;
  /** The buyer's billing country, upper case (checked by the caller). */
  country: string;
  zip: string | null;
  state: string | null;
  taxNumber: string | null;
  taxCode: TaxCode;
  /** A purchase refuses an invalid EU/UK VAT number; a preview prices it as a consumer's. */
  refuseInvalidNumber: boolean;
  /** The number's check by `verify` (online mode), made before any transaction; else checked offline here. */
  numberCheck?: TaxNumberCheck | null;
}

/** Where the rate came from, which is kept on the order as evidence. */
export interface TaxEvidence {
  billingCountry: string;
  billingZip: string | null;
  billingRegion: string | null;
  taxNumber: string | null;
  taxNumberCheck: TaxNumberCheck | null;
  /** The rate table's version, `TAX_RATES`, or `not_registered`. */
  rateSource: string | null;
}

export interface TaxDecision {
  /** Null: no tax. */
  tax: { name: string; rate: number } | null;
  inclusive: boolean;
  /** The reverse-charge wording for the receipt and invoice; null otherwise. */
  note: string | null;
  evidence: TaxEvidence;
}

const EU_REVERSE_CHARGE =
  'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).';
const UK_REVERSE_CHARGE =
  'Reverse charge: the customer accounts for the VAT to HMRC.';

/**
 * The one place a sale's tax is decided, for checkouts, previews and
 * purchases (renewals and refunds reuse what the order froze): the store's
 * registrations, B2B reverse charge on a valid EU/UK VAT number from another
 * country, TAX_RATES overriding a country's rate, else the provider's rate
 * for the buyer's country, region and the price's tax code.
 */
@Injectable()
export class TaxEngine {
  constructor(
    @Inject(TAX_PROVIDER) private readonly provider: TaxProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(VIES_CLIENT) private readonly vies: ViesClient | null,
  ) {}

  /**
   * The check of a buyer's tax number, online where configured: an EU VAT
   * number that passes the offline check is asked of VIES
   * (TAX_VAT_VALIDATION=online). Calls the network: never inside a
   * transaction. UK numbers are checked offline only (VIES no longer holds
   * them).
   */
  async verify(
    country: string,
    taxNumber: string | null,
  ): Promise<TaxNumberCheck | null> {
    const number = taxNumber ? normalizeTaxNumber(taxNumber) : '';
    if (!number) return null;
    const offline = checkVatNumber(country, number);
    if (offline !== 'valid' || !this.vies || !EU_COUNTRIES.has(country))
      return offline;
    const answer = await this.vies.check(number);
    return answer === 'unavailable' ? 'valid_offline' : answer;
  }

  async decide(request: TaxRequest): Promise<TaxDecision> {
    const { store, country } = request;
    const taxNumber = request.taxNumber
      ? normalizeTaxNumber(request.taxNumber) || null
      : null;
    const check =
      request.numberCheck !== undefined
        ? request.numberCheck
        : taxNumber
          ? checkVatNumber(country, taxNumber)
          : null;
    if (check === 'invalid' && request.refuseInvalidNumber)
      throw TaxErrors.invalidVatNumber(country);
    const evidence: TaxEvidence = {
      billingCountry: country,
      billingZip: request.zip,
      billingRegion: buyerRegion(country, request.state, request.zip),
      taxNumber,
      taxNumberCheck: check,
      rateSource: null,
    };
    const inclusive = store.taxInclusive ?? this.config.money.taxInclusive;
    const none = (note: string | null = null): TaxDecision => ({
      tax: null,
      inclusive,
      note,
      evidence,
    });
    if (!registeredFor(store.taxRegistrations, country)) {
      evidence.rateSource = 'not_registered';
      return none();
    }
    const validNumber = check === 'valid' || check === 'valid_offline';
    if (validNumber && country !== store.country) {
      evidence.rateSource = 'reverse_charge';
      return none(
        `${country === 'GB' ? UK_REVERSE_CHARGE : EU_REVERSE_CHARGE} Customer VAT number: ${taxNumber}.`,
      );
    }
    const configured = this.config.money.taxRates[country];
    if (configured) {
      evidence.rateSource = 'TAX_RATES';
      return { tax: configured, inclusive, note: null, evidence };
    }
    const provided = await this.provider.rateFor({
      storeCountry: store.country,
      country,
      region: evidence.billingRegion,
      taxCode: request.taxCode,
    });
    evidence.rateSource = provided?.source ?? this.provider.source;
    if (!provided) return none();
    return {
      tax: { name: provided.name, rate: provided.rate },
      inclusive,
      note: null,
      evidence,
    };
  }
}
