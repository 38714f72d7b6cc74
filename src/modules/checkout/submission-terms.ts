import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { OrderView } from '../order/order.repository';
import { OrderService } from '../order/order.service';
import { TaxEngine } from '../tax/tax-engine';
import { Body, buyerOf, formInput } from './purchase-input';
import { Offer } from './purchase.service';
import { PurchaseQuotes } from './purchase-quotes';

const DOMAIN = 'zest:checkout-submission-terms:v1\n';

/**
 * A Stripe page submitted again with other terms (another quantity,
 * variant, discount code, amount or tax address) after its first submit
 * opened an intent: the pending order and its intent are for the first
 * terms, and charging them would charge the old amount. Such a submit
 * gets an order of its own instead, priced as any purchase, whose
 * identifier is derived from the page's and the new terms (signed with
 * APP_KEY): repeated and parallel submits of the same terms find one
 * order and one intent, and going back to the first terms finds the first
 * order. The page only ever confirms the intent it was last given; the
 * others are never confirmed and the payment sweeper cancels them once
 * STRIPE_INTENT_TIMEOUT_MS has passed (their orders fail).
 */
@Injectable()
export class SubmissionTerms {
  constructor(
    private readonly quotes: PurchaseQuotes,
    private readonly orders: OrderService,
    private readonly taxes: TaxEngine,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The identifier of the order for this submit of the page's token `identifier`. */
  async identifierFor(
    offer: Offer,
    body: Body,
    identifier: string,
  ): Promise<string> {
    const first = await this.orders.findByIdentifier(identifier);
    if (!first || first.status !== 'pending') return identifier;
    const terms = await this.termsOf(offer, body);
    if (terms === orderTerms(first)) return identifier;
    return derive(this.config.appKey, identifier, terms);
  }

  /** What the order for this submit would charge, and for what. */
  private async termsOf(offer: Offer, body: Body): Promise<string> {
    const input = formInput(body);
    const buyer = buyerOf(input);
    const numberCheck = await this.taxes.verify(
      buyer.country,
      input.taxNumber?.trim() || null,
    );
    const quote = await this.quotes.quote(
      offer,
      input,
      this.clock.now(),
      undefined,
      numberCheck,
    );
    return [
      quote.variant.id,
      quote.quantity,
      quote.unitPrice,
      quote.totals.total,
      offer.target.store.currency,
    ].join(':');
  }
}

function orderTerms(order: OrderView): string {
  return [
    order.firstItem?.variantId,
    order.firstItem?.quantity,
    order.firstItem?.price,
    order.total,
    order.currency,
  ].join(':');
}

/** A version-4-shaped UUID from the page's identifier and the terms. */
function derive(key: string, identifier: string, terms: string): string {
  const hex = createHmac('sha256', key)
    .update(`${DOMAIN}${identifier}\n${terms}`)
    .digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
