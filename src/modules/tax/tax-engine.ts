import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { EU_COUNTRIES } from './digital-rules';
import { buyerRegion } from './regions';
import { registeredFor } from './registrations';
import { StripeTaxService } from './stripe-tax.service';
import {
  CalculatedTax,
  TaxCode,
  TAX_PROVIDER,
  type TaxProvider,
  type TaxProviderName,
} from './tax-provider';
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
  /** Absent: the built-in tables. */
  taxProvider?: TaxProviderName;
  /** The store's id (Stripe Tax: whose Stripe account). */
  id?: number;
}

/** What a tax service needs of the sale beyond the buyer (Stripe Tax). */
export interface TaxSaleDetails {
  testMode: boolean;
  /** The taxable amount, minor units (after the discount, with the setup fee). */
  amount: number;
  currency: string;
  /** The line's reference at the service. */
  reference: string;
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
  /** The sale, for a store that uses Stripe Tax. */
  sale?: TaxSaleDetails;
  /** Stripe Tax's calculation made before the transaction, reused when the sale is the same. */
  calculated?: CalculatedTax | null;
  /** Inside a transaction: never call the tax service (a stale calculation is a 409). */
  offline?: boolean;
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
  /** Stripe Tax's calculation behind the decision, if the store uses it. */
  calculated?: CalculatedTax;
}

const EU_REVERSE_CHARGE =
  'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).';
const UK_REVERSE_CHARGE =
  'Reverse charge: the customer accounts for the VAT to HMRC.';

/**
 * The one place a sale's tax is decided, for checkouts, previews and
 * purchases (refunds reuse what the order froze; renewals the subscription's
 * terms, or a Stripe Tax store's own calculation, see RenewalTax): the store's
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
    @Optional()
    @Inject(StripeTaxService)
    private readonly stripeTax: StripeTaxService | null = null,
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
    const validNumber = check === 'valid' || check === 'valid_offline';
    if (store.taxProvider === 'stripe')
      return this.decideWithStripe(request, evidence, inclusive, validNumber);
    if (!registeredFor(store.taxRegistrations, country)) {
      evidence.rateSource = 'not_registered';
      return none();
    }
    if (validNumber && country !== store.country) {
      evidence.rateSource = 'reverse_charge';
      return none(reverseChargeNote(country, taxNumber));
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

  /**
   * A Stripe Tax store: Stripe decides from the store's registrations in
   * Stripe, the buyer's address and a valid VAT number (reverse charge).
   * The calculation is made before the purchase's transaction and passed
   * in; inside it (`offline`) a missing or stale one is a 409, never a
   * network call.
   */
  private async decideWithStripe(
    request: TaxRequest,
    evidence: TaxEvidence,
    inclusive: boolean,
    validNumber: boolean,
  ): Promise<TaxDecision> {
    const { store, sale } = request;
    if (!sale || store.id === undefined)
      throw new Error('A Stripe Tax decision needs the store and the sale');
    evidence.rateSource = STRIPE_TAX_SOURCE;
    const decision = (calculated?: CalculatedTax): TaxDecision => ({
      tax: calculated?.rate ?? null,
      inclusive,
      note: calculated?.reverseCharge
        ? reverseChargeNote(request.country, evidence.taxNumber)
        : null,
      evidence,
      calculated,
    });
    // Nothing to tax, or no buyer's country yet (a page's first view): no
    // calculation (and no tax transaction).
    if (sale.amount <= 0 || !request.country) return decision();
    const given = request.calculated;
    let calculated: CalculatedTax;
    if (
      given &&
      given.amount === sale.amount &&
      given.currency === sale.currency &&
      given.inclusive === inclusive
    ) {
      calculated = given;
    } else {
      if (request.offline) throw TaxErrors.taxQuoteChanged();
      if (!this.stripeTax) throw TaxErrors.taxServiceUnavailable();
      calculated = await this.stripeTax.calculate({
        storeId: store.id,
        testMode: sale.testMode,
        amount: sale.amount,
        currency: sale.currency,
        inclusive,
        country: request.country,
        zip: evidence.billingZip,
        state:
          evidence.billingRegion ??
          (request.state?.trim().toUpperCase() || null),
        taxNumber: validNumber ? evidence.taxNumber : null,
        taxCode: request.taxCode,
        reference: sale.reference,
      });
    }
    if (calculated.calculationId)
      evidence.rateSource = `${STRIPE_TAX_SOURCE}:${calculated.calculationId}`;
    return decision(calculated);
  }
}

/** The rate source of a Stripe Tax order; with `:taxcalc_…` when Stripe calculated it. */
export const STRIPE_TAX_SOURCE = 'stripe_tax';

/** The reverse-charge wording for the receipt and invoice. */
function reverseChargeNote(country: string, taxNumber: string | null): string {
  return `${country === 'GB' ? UK_REVERSE_CHARGE : EU_REVERSE_CHARGE} Customer VAT number: ${taxNumber}.`;
}
