import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { formatMoney, toMajorUnits } from '../../common/money';
import { SignedUrls } from '../../common/signed-urls.service';
import { OrderService } from '../order/order.service';
import { cardDeclined } from '../payment/payment.errors';
import { StripeCheckoutIntents } from '../payment/stripe-checkout-intents';
import { toStripeAmount } from '../payment/stripe-amounts';
import { SubmissionTokens } from './submission-tokens';
import {
  CheckoutPageModel,
  StripeElementsModel,
  PageTotals,
  plainText,
  renderCheckoutPage,
} from './checkout.page';
import { HostedPage, HostedResponse, pageTotals } from './hosted-pages';
import { checkoutTerms } from './checkout-terms';
import { CheckoutService } from './checkout.service';
import {
  formInput,
  isObject,
  jsonInput,
  PurchaseInput,
} from './purchase-input';
import { quantityLimitsOf } from '../catalog/quantity-limits';
import { defaultQuantity } from './offer-selection';
import { Offer, PurchaseService } from './purchase.service';
import { PurchaseQuotes, Quote } from './purchase-quotes';
import { buyerSetsPrice, unitPriceOf } from './unit-price';
import { CheckoutErrors } from './checkout.errors';

/** How the Payment Element is set up for a quote: a payment, a card saved for later, or none. */
function elementsOf(quote: Quote): StripeElementsModel | null {
  const { total, currency } = quote.totals;
  const subscription = quote.price.category === 'subscription';
  if (total > 0)
    return {
      mode: 'payment',
      amount: toStripeAmount(total, currency),
      currency: currency.toLowerCase(),
      saveCard: subscription,
    };
  if (!subscription) return null;
  return {
    mode: 'setup',
    amount: null,
    currency: currency.toLowerCase(),
    saveCard: true,
  };
}

/**
 * The hosted checkout: its page and its form and JSON submissions (the
 * receipt page is ReceiptPageService's). Only signed URLs and variants'
 * public UUIDs lead here.
 */
@Injectable()
export class HostedCheckoutService {
  constructor(
    private readonly checkouts: CheckoutService,
    private readonly purchases: PurchaseService,
    private readonly quotes: PurchaseQuotes,
    private readonly orders: OrderService,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    private readonly intents: StripeCheckoutIntents,
    private readonly submissions: SubmissionTokens,
  ) {}

  /** Resolves the offer at a URL; the custom checkout's signature is checked first. */
  async offer(kind: 'custom' | 'buy', id: string, url: string): Promise<Offer> {
    if (kind === 'buy') return this.checkouts.offerForVariant(id);
    const check = this.signedUrls.verify(url);
    if (check === 'expired') throw CheckoutErrors.linkExpired();
    if (check !== 'valid') throw CheckoutErrors.linkInvalid();
    return this.checkouts.offerForCheckout(id);
  }

  /**
   * GET: the page with the checkout's prefilled data; while purchases are
   * paused (too many declined cards) it says so and cannot be paid.
   */
  async page(
    offer: Offer,
    action: string,
    purchasesPaused = false,
  ): Promise<HostedResponse> {
    const data = offer.checkout?.checkoutData;
    const input: PurchaseInput = {
      email: data?.email,
      name: data?.name,
      country: data?.billing_address.country,
      zip: data?.billing_address.zip,
      taxNumber: data?.tax_number,
      discountCode: data?.discount_code,
    };
    return this.form(offer, action, input, [], 200, purchasesPaused);
  }

  /** POST from the form (apply a code or pay) or as JSON (pay). */
  async submit(
    offer: Offer,
    action: string,
    body: unknown,
    json: boolean,
  ): Promise<HostedResponse> {
    if (json) return this.submitJson(offer, body);
    const fields = isObject(body) ? body : {};
    const input = formInput(fields);
    if (fields.intent === 'apply')
      return this.form(offer, action, input, [], 200);
    try {
      const result = await this.purchases.purchase(offer, input);
      if (result.status === 'declined') {
        const page = await this.form(
          offer,
          action,
          input,
          [result.reason],
          402,
        );
        return { ...page, declined: true };
      }
      return {
        kind: 'redirect',
        location:
          offer.checkout?.productOptions.redirect_url ||
          this.orders.receiptUrl(result.order),
      };
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return this.form(
        offer,
        action,
        input,
        // The Stripe page's form posted without its script.
        error.errors.map((e) =>
          e.code === 'hosted_payment_required'
            ? 'Paying by card needs JavaScript (cards are entered in Stripe’s secure form): enable it and reload this page.'
            : e.detail,
        ),
        error.status,
      );
    }
  }

  private async submitJson(
    offer: Offer,
    body: unknown,
  ): Promise<HostedResponse> {
    if (!isObject(body)) throw CheckoutErrors.bodyNotObject();
    const result = await this.purchases.purchase(offer, jsonInput(body));
    if (result.status === 'declined') {
      throw cardDeclined(
        402,
        `${result.reason} Order ${result.order.identifier} was recorded as failed.`,
        'card_number',
      );
    }
    return { kind: 'order', order: result.order };
  }

  /** The checkout page for this input, with these errors. */
  async form(
    offer: Offer,
    action: string,
    input: PurchaseInput,
    errors: string[],
    status: number,
    purchasesPaused = false,
  ): Promise<HostedPage> {
    const { target, checkout } = offer;
    const options = checkout?.checkoutOptions;
    const productOptions = checkout?.productOptions;
    // The buyer's pick, even when the quote below refuses the input.
    let variantId =
      offer.variants.find((v) => String(v.id) === input.variantId)?.id ??
      target.variant.id;
    let quantity = defaultQuantity(offer, target.variant);
    let totals: PageTotals | null = null;
    let discountApplied: string | null = null;
    let discountMessage: string | null = null;
    let elements: StripeElementsModel | null = null;
    const publishableKey = await this.intents.publishableKey(
      target.store.id,
      offer.testMode,
    );
    try {
      const quote = await this.quotes.quote(offer, input, this.clock.now());
      elements = elementsOf(quote);
      variantId = quote.variant.id;
      quantity = quote.quantity;
      totals = pageTotals(quote.totals);
      discountMessage = quote.discountRefusal;
      if (quote.discount) {
        const { discount } = quote.discount;
        discountApplied = `${discount.code}: ${
          discount.amountType === 'percent'
            ? `${discount.amount}% off`
            : `${formatMoney(discount.amount, target.store.currency)} off`
        }`;
      }
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      errors = [...errors, ...error.errors.map((e) => e.detail)].filter(
        (e, i, all) => all.indexOf(e) === i,
      );
      status = status === 200 ? error.status : status;
    }
    const model: CheckoutPageModel = {
      action,
      storeName: target.store.name,
      storeAvatar: target.store.avatarUrl,
      productName: productOptions?.name || target.product.name,
      description: plainText(
        productOptions?.description || target.product.description,
      ),
      media:
        productOptions && productOptions.media.length > 0
          ? productOptions.media
          : target.product.largeThumbUrl
            ? [target.product.largeThumbUrl]
            : [],
      variants: offer.variants.map((v) => {
        const price = target.prices.get(v.id);
        return {
          id: v.id,
          name: v.name,
          price: price
            ? formatMoney(
                checkout?.customPrice ?? unitPriceOf(price),
                target.store.currency,
              )
            : 'Unavailable',
          selected: v.id === variantId,
        };
      }),
      quantity,
      quantityLimits: quantityLimitsOf(
        offer.variants.find((v) => v.id === variantId) ?? target.variant,
      ),
      amount: this.amountField(offer, variantId, input),
      values: {
        email: input.email ?? '',
        name: input.name ?? '',
        country: input.country ?? '',
        zip: input.zip ?? '',
        state: input.state ?? '',
        taxNumber: input.taxNumber ?? '',
        discountCode: input.discountCode ?? '',
      },
      show: {
        media: options?.media ?? true,
        logo: options?.logo ?? true,
        desc: options?.desc ?? true,
        discount: options?.discount ?? true,
      },
      dark: options?.dark ?? false,
      buttonColor: options?.button_color ?? null,
      totals,
      terms: this.terms(offer, variantId, quantity),
      discountApplied,
      discountMessage,
      errors,
      purchasesPaused,
      testMode: offer.testMode,
      stripe: publishableKey
        ? {
            publishableKey,
            submission: this.submissions.issue(),
            elements,
          }
        : null,
    };
    return {
      kind: 'html',
      status,
      html: renderCheckoutPage(model),
      stripe: publishableKey !== null,
    };
  }

  private terms(offer: Offer, variantId: number, quantity: number) {
    const price = offer.target.prices.get(variantId);
    if (!price) return null;
    return checkoutTerms({
      price,
      unitPrice: offer.checkout?.customPrice ?? unitPriceOf(price),
      quantity,
      currency: offer.target.store.currency,
      skipTrial: offer.checkout?.checkoutOptions.skip_trial ?? false,
      now: this.clock.now(),
    });
  }

  /** The pay-what-you-want field: the buyer's text, else the suggested price. */
  private amountField(
    offer: Offer,
    variantId: number,
    input: PurchaseInput,
  ): CheckoutPageModel['amount'] {
    const price = offer.target.prices.get(variantId);
    if (!price || !buyerSetsPrice(price, offer.checkout?.customPrice ?? null))
      return null;
    const { currency } = offer.target.store;
    return {
      currency,
      value:
        input.amount?.unit === 'major'
          ? input.amount.value
          : toMajorUnits(unitPriceOf(price), currency),
      minimum: formatMoney(price.minPrice ?? 0, currency),
    };
  }
}
