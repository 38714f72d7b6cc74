import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Customer } from '../customer/customer.entity';
import { Store } from '../store/store.entity';
import { TaxDecision, TaxEngine, TaxRequest } from '../tax/tax-engine';
import type { CalculatedTax } from '../tax/tax-provider';
import { InvoiceTaxTerms } from './subscription-billing.service';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';

/** Stripe Tax calculations made before renewals' transactions, by subscription. */
export type RenewalQuotes = Map<number, CalculatedTax | undefined>;

/**
 * Thrown inside a renewal's transaction (rolling it back: nothing is
 * written) when a Stripe Tax store's renewal has no calculation for its
 * amount yet; the sweep makes one outside the transaction and renews again.
 */
export class RenewalTaxQuoteNeeded extends Error {
  constructor(
    readonly subscriptionId: number,
    readonly request: TaxRequest,
  ) {
    super(`Subscription ${subscriptionId} needs a Stripe Tax calculation`);
  }
}

/**
 * The tax of a renewal invoice. A store on the built-in tables charges the
 * terms the subscription keeps (SubscriptionTaxTerms moves them with the
 * address); a Stripe Tax store's renewal is a sale of its own, priced by a
 * Stripe Tax calculation of the invoice's taxable amount for the
 * customer's billing address, made before the transaction (never inside
 * it), so its tax transaction can be recorded at Stripe once it is paid.
 */
@Injectable()
export class RenewalTax {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly taxes: TaxEngine,
  ) {}

  /**
   * Inside the renewal's transaction: the invoice's tax terms, null for the
   * subscription's own. Throws RenewalTaxQuoteNeeded when the calculation
   * in `quotes` is missing or was made for another amount.
   */
  async terms(
    manager: EntityManager,
    s: Subscription,
    taxableAmount: number,
    quotes: RenewalQuotes,
  ): Promise<InvoiceTaxTerms | null> {
    const request = await this.request(manager, s, taxableAmount);
    if (!request) return null;
    let decision: TaxDecision;
    try {
      decision = await this.taxes.decide({
        ...request,
        calculated: quotes.get(s.id) ?? null,
        offline: true,
      });
    } catch (error) {
      if (
        error instanceof AppError &&
        error.codes.includes('tax_quote_changed')
      )
        throw new RenewalTaxQuoteNeeded(s.id, request);
      throw error;
    }
    return {
      taxName: decision.tax?.name ?? null,
      taxRate: String(decision.tax?.rate ?? 0),
      taxNote: decision.note,
      taxRateSource: decision.calculated?.calculationId
        ? decision.evidence.rateSource
        : null,
    };
  }

  /**
   * Outside any transaction: Stripe Tax's calculation for the request. A
   * 503/422 (`tax_service_unavailable`, `invalid_tax_location`) propagates.
   */
  async quote(request: TaxRequest): Promise<CalculatedTax | undefined> {
    const decision = await this.taxes.decide(request);
    return decision.calculated;
  }

  /** What Stripe Tax is asked for a renewal; null when the subscription's terms apply. */
  private async request(
    manager: EntityManager,
    s: Subscription,
    amount: number,
  ): Promise<TaxRequest | null> {
    const store = await manager.findOneByOrFail(Store, { id: s.storeId });
    if (store.taxProvider !== 'stripe') return null;
    const customer = await manager.findOneBy(Customer, { id: s.customerId });
    // Without a billing country there is nothing to ask Stripe: the
    // subscription's terms stay, as they do for a changed address.
    if (!customer?.country) return null;
    const item = (await this.subscriptions.firstItems(manager, [s.id])).get(
      s.id,
    );
    const price = item
      ? await this.subscriptions.price(manager, item.priceId)
      : null;
    if (!price) return null;
    return {
      // Priced as the subscription was sold: inclusive or not.
      store: {
        id: store.id,
        country: store.country,
        taxInclusive: s.taxInclusive,
        taxRegistrations: store.taxRegistrations,
        taxProvider: store.taxProvider,
      },
      country: customer.country,
      zip: customer.zip,
      state: customer.region,
      taxNumber: customer.taxNumber,
      taxCode: price.taxCode,
      refuseInvalidNumber: false,
      sale: {
        testMode: s.testMode,
        amount,
        currency: s.currency,
        reference: `variant_${s.variantId}`,
      },
    };
  }
}
