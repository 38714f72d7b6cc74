import { Injectable, Logger } from '@nestjs/common';
import { buyerTaxNumberLine, sellerLines } from '../store/store-legal';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { formatMoney, toMajorUnits } from '../../common/money';
import { SignedUrls } from '../../common/signed-urls.service';
import { formatFileSize } from '../catalog/catalog-format';
import { DeliveryService } from '../delivery/delivery.service';
import { CustomerService } from '../customer/customer.service';
import { OrderView } from '../order/order.repository';
import { ReceiptExtras } from '../order/receipt-extras';
import { OrderService } from '../order/order.service';
import { orderStatusLabel } from '../order/order-status';
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
  renderMessagePage,
  renderReceiptPage,
} from './checkout-page';
import { CheckoutRepository } from './checkout.repository';
import { receiptSections } from './receipt-sections';
import { checkoutTerms } from './checkout-terms';
import { CheckoutService } from './checkout.service';
import { Totals } from './pricing';
import {
  formInput,
  isObject,
  jsonInput,
  PurchaseInput,
} from './purchase-input';
import { Offer, PurchaseService, Quote } from './purchase.service';
import { buyerSetsPrice, unitPriceOf } from './unit-price';
import { CheckoutErrors } from './checkout.errors';

/**
 * A page; `declined` marks the form's answer to a declined card, `stripe`
 * a page that runs Stripe.js (its Content-Security-Policy allows it).
 */
export type HostedPage = {
  kind: 'html';
  status: number;
  html: string;
  declined?: boolean;
  stripe?: boolean;
};

export type HostedResponse =
  | HostedPage
  | { kind: 'redirect'; location: string }
  /** The JSON purchase's order, rendered as a JSON:API document by the controller. */
  | { kind: 'order'; order: OrderView }
  /** A plain JSON answer (the Stripe page's script). */
  | { kind: 'json'; body: unknown };

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

function pageTotals(totals: Totals): PageTotals {
  const money = (cents: number) => formatMoney(cents, totals.currency);
  return {
    subtotal: money(totals.subtotal),
    discount: totals.discountTotal > 0 ? money(totals.discountTotal) : null,
    setupFee: totals.setupFee > 0 ? money(totals.setupFee) : null,
    tax: totals.taxName !== null ? money(totals.tax) : null,
    taxLabel: totals.taxName
      ? `${totals.taxName} ${totals.taxRate}%${totals.taxInclusive ? ' (included)' : ''}`
      : 'Tax',
    total: money(totals.total),
  };
}

/**
 * The hosted checkout: its page, its form and JSON submissions, and the
 * receipt page. Only signed URLs and variants' public UUIDs lead here.
 */
@Injectable()
export class HostedCheckoutService {
  private readonly logger = new Logger('HostedCheckout');

  constructor(
    private readonly checkouts: CheckoutService,
    private readonly repository: CheckoutRepository,
    private readonly purchases: PurchaseService,
    private readonly orders: OrderService,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    private readonly delivery: DeliveryService,
    private readonly extras: ReceiptExtras,
    private readonly customers: CustomerService,
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
    let quantity = this.purchases.defaultQuantity(offer, target.variant);
    let totals: PageTotals | null = null;
    let discountApplied: string | null = null;
    let discountMessage: string | null = null;
    let elements: StripeElementsModel | null = null;
    const publishableKey = await this.intents.publishableKey(
      target.store.id,
      offer.testMode,
    );
    try {
      const quote = await this.purchases.quote(offer, input, this.clock.now());
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

  /** The receipt at `urls.receipt`. */
  async receipt(identifier: string, url: string): Promise<HostedResponse> {
    const check = this.signedUrls.verify(url);
    if (check !== 'valid')
      return this.message(403, 'Link invalid', 'This receipt link is invalid.');
    const order = await this.orders.findByIdentifier(identifier);
    if (!order)
      return this.message(404, 'Not found', 'This order does not exist.');
    return {
      kind: 'html',
      status: 200,
      html: await this.receiptHtml(order),
    };
  }

  private async receiptHtml(order: OrderView): Promise<string> {
    const checkout = order.checkoutId
      ? await this.repository.findById(order.checkoutId)
      : null;
    const store = await this.repository.store(order.storeId);
    const options = checkout?.productOptions;
    const item = order.firstItem;
    const totals = pageTotals({
      currency: order.currency,
      currencyRate: order.currencyRate,
      subtotal: order.subtotal,
      discountTotal: order.discountTotal,
      setupFee: order.setupFee,
      tax: order.tax,
      total: order.total,
      subtotalUsd: order.subtotalUsd,
      discountTotalUsd: order.discountTotalUsd,
      setupFeeUsd: order.setupFeeUsd,
      taxUsd: order.taxUsd,
      totalUsd: order.totalUsd,
      taxName: order.taxName,
      taxRate: order.taxRate,
      taxInclusive: order.taxInclusive,
    });
    const failed = order.status === 'failed';
    // Fresh links on every view: they expire, the page does not.
    const downloads = await this.delivery.orderDownloads(order.id);
    const extras = failed ? '' : await this.receiptExtras(order);
    return renderReceiptPage({
      storeName: store?.name ?? '',
      seller: store
        ? sellerLines(store, order.billingCountry)
        : { name: '', lines: [] },
      invoiceNumber: order.invoiceNumber,
      buyerTaxNumber: buyerTaxNumberLine(order.billingCountry, order.taxNumber),
      buyerName: order.userName,
      orderNumber: order.orderNumber,
      status: orderStatusLabel(order.status),
      email: order.userEmail,
      productName: item?.productName ?? '',
      variantName: item?.variantName ?? '',
      quantity: item?.quantity ?? 1,
      totals,
      taxNote: order.taxNote,
      title: failed
        ? 'Payment failed'
        : options?.confirmation_title || 'Thanks for your order!',
      message: failed
        ? 'The payment was declined; nothing was charged.'
        : options?.receipt_thank_you_note ||
          options?.confirmation_message ||
          'Your purchase was successful.',
      button:
        options?.receipt_link_url && !failed
          ? {
              text: options.receipt_button_text || 'Continue',
              url: options.receipt_link_url,
            }
          : null,
      createdAt: order.createdAt.toISOString().slice(0, 10),
      downloads: downloads.map((download) => ({
        name: download.name,
        url: download.url,
        size: formatFileSize(download.size),
        remaining:
          download.downloadLimit === null
            ? null
            : Math.max(0, download.downloadLimit - download.downloadsUsed),
      })),
      extras,
    });
  }

  /** License keys in full, terms, the invoice and a portal link for every buyer. */
  private async receiptExtras(order: OrderView): Promise<string> {
    const [licenseKeys, terms, invoiceUrl] = await Promise.all([
      this.extras.licenseKeys(order),
      this.extras.terms(order),
      this.extras.invoiceUrl(order),
    ]);
    return receiptSections({
      licenseKeys,
      terms,
      invoiceUrl,
      portalUrl: this.customers.portalLink(order.customerId),
    });
  }

  message(status: number, title: string, message: string): HostedResponse {
    return { kind: 'html', status, html: renderMessagePage(title, message) };
  }

  /** An AppError met before a page could be built (unknown checkout, bad link). */
  errorPage(error: AppError): HostedResponse {
    this.logger.debug(`Hosted checkout refused: ${error.message}`);
    const title = error.status === 404 ? 'Not found' : 'Unavailable';
    return this.message(error.status, title, error.message);
  }
}
