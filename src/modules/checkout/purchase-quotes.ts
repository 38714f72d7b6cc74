import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Price } from '../catalog/price.entity';
import { setupFeeAtSignup, unitPriceAtSignup } from '../catalog/signup-charge';
import { Variant } from '../catalog/variant.entity';
import { ExchangeRates, UsdRate } from '../currency/exchange-rates.service';
import { AppliedDiscount, DiscountService } from '../discount/discount.service';
import { TaxDecision, TaxEngine } from '../tax/tax-engine';
import type { CalculatedTax } from '../tax/tax-provider';
import type { TaxNumberCheck } from '../tax/vat-number';
import { CheckoutErrors } from './checkout.errors';
import { chosenQuantity, Offer, selectVariant } from './offer-selection';
import { computeTotals, Totals } from './pricing';
import { PurchaseInput } from './purchase-input';
import { chosenUnitPrice, MAX_CENTS } from './unit-price';

export interface Quote {
  variant: Variant;
  price: Price;
  quantity: number;
  unitPrice: number;
  totals: Totals;
  /** The tax decision behind `totals`, with its evidence for the order. */
  tax: TaxDecision;
  /** The exchange rate the totals' `_usd` figures used, with its day. */
  usdRate: UsdRate;
  discount: AppliedDiscount | null;
  /** Why the entered code was not applied (quotes only; a purchase throws instead). */
  discountRefusal: string | null;
}

/**
 * What an offer costs for a buyer's input: the variant, quantity and unit
 * price chosen, the discount, the tax decision and the totals, with the
 * exchange rate of their `_usd` figures. The checkout's preview, the hosted
 * page and the purchase all price through it.
 */
@Injectable()
export class PurchaseQuotes {
  constructor(
    private readonly discounts: DiscountService,
    private readonly rates: ExchangeRates,
    private readonly taxes: TaxEngine,
  ) {}

  /**
   * Prices the offer for this input. Without a manager an unusable discount
   * code is reported in `discountRefusal`; with one (the purchase) the
   * discount row is locked and a refusal is a 422.
   */
  async quote(
    offer: Offer,
    input: PurchaseInput,
    now: Date,
    manager?: EntityManager,
    /** The tax number's online check, made before the purchase's transaction. */
    numberCheck?: TaxNumberCheck | null,
    /** Stripe Tax's calculation, made before the purchase's transaction. */
    calculated?: CalculatedTax | null,
  ): Promise<Quote> {
    const variant = selectVariant(offer, input.variantId);
    const price = offer.target.prices.get(variant.id);
    if (!price) throw CheckoutErrors.variantWithoutPrice();
    const quantity = chosenQuantity(offer, variant, input.quantity);
    const store = offer.target.store;
    const usdRate = await this.rates.usdRate(store.currency, manager);
    const listed = chosenUnitPrice(
      price,
      offer.checkout?.customPrice ?? null,
      input.amount,
      store.currency,
    );
    const unitPrice = unitPriceAtSignup(
      price,
      offer.checkout?.checkoutOptions.skip_trial ?? false,
      listed,
    );
    const subtotal = unitPrice * quantity;
    let discount: AppliedDiscount | null = null;
    let discountRefusal: string | null = null;
    const code = input.discountCode?.trim();
    if (code) {
      try {
        discount = await this.discounts.apply(
          {
            storeId: store.id,
            testMode: offer.testMode,
            code,
            variantId: variant.id,
            subtotal,
            now,
          },
          manager,
        );
      } catch (error) {
        if (manager || !(error instanceof AppError)) throw error;
        discountRefusal = error.errors[0].detail;
      }
    }
    const country = input.country?.trim().toUpperCase() ?? '';
    const taxNumber = input.taxNumber?.trim() || null;
    const setupFee = setupFeeAtSignup(price);
    const tax = await this.taxes.decide({
      store,
      country,
      zip: input.zip?.trim() || null,
      state: input.state?.trim() || null,
      taxNumber,
      taxCode: price.taxCode,
      refuseInvalidNumber: manager !== undefined,
      // Outside a transaction (a preview) the number may be checked online.
      numberCheck:
        numberCheck !== undefined || manager
          ? numberCheck
          : await this.taxes.verify(country, taxNumber),
      sale: {
        testMode: offer.testMode,
        amount: subtotal - Math.min(discount?.amount ?? 0, subtotal) + setupFee,
        currency: store.currency,
        reference: `variant_${variant.id}`,
      },
      calculated,
      offline: manager !== undefined,
    });
    const totals = computeTotals({
      currency: store.currency,
      currencyRate: usdRate.rate,
      unitPrice,
      quantity,
      setupFee,
      discount: discount?.amount ?? 0,
      tax: tax.tax,
      taxInclusive: tax.inclusive,
    });
    const { subtotal: gross, subtotalUsd, total, totalUsd } = totals;
    if (Math.max(gross, subtotalUsd, total, totalUsd) > MAX_CENTS)
      throw CheckoutErrors.totalTooLarge();
    return {
      variant,
      price,
      quantity,
      unitPrice,
      totals,
      tax,
      usdRate,
      discount,
      discountRefusal,
    };
  }
}
