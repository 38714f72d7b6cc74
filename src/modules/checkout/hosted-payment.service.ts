import { Inject, Injectable } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { OrderView } from '../order/order.repository';
import { OrderService } from '../order/order.service';
import { RECEIPT_PATH } from '../order/order-receipts';
import { PaymentAttempts } from '../payment/payment-attempts';
import { StripeCheckoutIntents } from '../payment/stripe-checkout-intents';
import { withoutStripeReturnParams } from '../payment/stripe-return-url';
import { CHECKOUT_PATH } from './checkout.serializer';
import { CheckoutService } from './checkout.service';
import { CheckoutErrors } from './checkout.errors';
import { HostedCheckoutService } from './hosted-checkout.service';
import { HostedResponse, messagePage } from './hosted-pages';
import { Body, formInput } from './purchase-input';
import { Offer, PurchaseService } from './purchase.service';
import { SubmissionTerms } from './submission-terms';
import { SubmissionTokens } from './submission-tokens';

/** What the page's script gets back from a submit. */
export type HostedIntentAnswer =
  | {
      intent_type: 'payment' | 'setup';
      client_secret: string;
      return_url: string;
    }
  /** Nothing to confirm (already paid, or nothing due): go there. */
  | { redirect: string };

/**
 * The hosted checkout of a store that takes cards through its own Stripe
 * account: the page's script submits the buyer's details with the page's
 * submission token; the purchase's first transaction runs as for any
 * purchase (pending order, redemption) with an intent attempt, and after
 * the commit the PaymentIntent (or SetupIntent) is opened at Stripe and
 * its client secret returned for `stripe.confirmPayment`. Stripe.js then
 * brings the buyer back to the signed return route, which settles the
 * payment (`PaymentAttempts.settleIntent`, as Stripe's webhook does) and
 * shows the receipt, or the checkout again with the refusal.
 */
@Injectable()
export class HostedPaymentService {
  constructor(
    private readonly purchases: PurchaseService,
    private readonly checkouts: CheckoutService,
    private readonly hosted: HostedCheckoutService,
    private readonly orders: OrderService,
    private readonly attempts: PaymentAttempts,
    private readonly intents: StripeCheckoutIntents,
    private readonly submissions: SubmissionTokens,
    private readonly terms: SubmissionTerms,
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The page's submit: writes the order named by the submission token once
   * (parallel and repeated submits find it) and opens its intent.
   */
  async submit(offer: Offer, body: Body): Promise<HostedIntentAnswer> {
    const token = this.submissions.identifierOf(body.submission);
    const publishable = await this.intents.publishableKey(
      offer.target.store.id,
      offer.testMode,
    );
    // The page was rendered for Stripe; the store has disconnected since.
    if (!publishable) throw CheckoutErrors.submissionInvalid();
    const identifier = await this.terms.identifierFor(offer, body, token);
    const order =
      (await this.orders.findByIdentifier(identifier)) ??
      (await this.begin(offer, body, identifier));
    if (
      order.storeId !== offer.target.store.id ||
      order.testMode !== offer.testMode
    )
      throw CheckoutErrors.submissionSpent();
    if (order.status === 'paid')
      return { redirect: this.doneUrl(offer, order) };
    if (order.status !== 'pending') throw CheckoutErrors.submissionSpent();
    const attempt = await this.purchases.intentAttemptOf(order);
    if (!attempt || attempt.status !== 'pending')
      throw CheckoutErrors.submissionSpent();
    const intent = await this.intents.open(
      attempt,
      {
        customerId: order.customerId,
        email: order.userEmail,
        name: order.userName,
      },
      await this.purchases.subscribes(order),
    );
    if (intent.status === 'succeeded' || intent.status === 'canceled') {
      await this.attempts.settleIntent(
        order.storeId,
        order.testMode,
        intent.id,
      );
      const settled = (await this.orders.findByIdentifier(identifier))!;
      if (settled.status === 'paid')
        return { redirect: this.doneUrl(offer, settled) };
      throw CheckoutErrors.submissionSpent();
    }
    return {
      intent_type: intent.kind,
      client_secret: intent.clientSecret,
      return_url: this.returnUrl(identifier),
    };
  }

  /**
   * The return route, where Stripe.js brings the buyer: settles the order's
   * intent (a no-op when the webhook came first), then the receipt (or the
   * checkout's redirect_url); a refused payment shows the checkout again
   * with the refusal (402, a fresh form); an intent still open a page that
   * says the payment is not complete.
   */
  async returned(
    identifier: string,
    url: string,
  ): Promise<HostedResponse & { declined?: boolean }> {
    if (this.signedUrls.verify(withoutStripeReturnParams(url)) !== 'valid')
      return messagePage(403, 'Link invalid', 'This payment link is invalid.');
    let order = await this.orders.findByIdentifier(identifier);
    if (!order)
      return messagePage(404, 'Not found', 'This order does not exist.');
    if (order.status === 'pending') {
      const attempt = await this.purchases.intentAttemptOf(order);
      if (attempt?.paymentId && attempt.status === 'pending') {
        await this.attempts.settleIntent(
          order.storeId,
          order.testMode,
          attempt.paymentId,
        );
        order = (await this.orders.findByIdentifier(identifier))!;
      }
    }
    const offer = await this.checkouts.offerForOrder(order);
    if (order.status === 'paid')
      return { kind: 'redirect', location: this.doneUrl(offer, order) };
    if (order.status === 'pending')
      return messagePage(
        202,
        'Payment not complete',
        'Your payment has not been completed yet. If you confirmed it, reload this page in a moment; you will not be charged twice.',
      );
    const reason = order.failureReason ?? 'The payment did not go through.';
    if (!offer)
      return {
        ...messagePage(402, 'Payment failed', reason),
        declined: true,
      };
    const page = await this.hosted.form(
      offer,
      this.pagePath(offer),
      {
        email: order.userEmail,
        name: order.userName,
        country: order.billingCountry ?? undefined,
        zip: order.billingZip ?? undefined,
        taxNumber: order.taxNumber ?? undefined,
        variantId: order.firstItem ? String(order.firstItem.variantId) : '',
        quantity: order.firstItem ? String(order.firstItem.quantity) : '',
      },
      [reason],
      402,
    );
    return { ...page, declined: true };
  }

  /** The first transaction; a racing submit of the same token that wrote it first is found instead. */
  private async begin(
    offer: Offer,
    body: Body,
    identifier: string,
  ): Promise<OrderView> {
    try {
      await this.purchases.begin(offer, formInput(body), identifier, 'intent');
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const order = await this.orders.findByIdentifier(identifier);
    if (!order) throw new Error(`Order ${identifier} was not written`);
    return order;
  }

  private doneUrl(offer: Offer | null, order: OrderView): string {
    return (
      offer?.checkout?.productOptions.redirect_url ||
      this.orders.receiptUrl(order)
    );
  }

  /** Where Stripe.js brings the buyer back: signed, so only Zest's intents lead there. */
  private returnUrl(identifier: string): string {
    return this.signedUrls.sign(
      this.config.http.checkoutBaseUrl,
      `${RECEIPT_PATH}/${identifier}/return`,
    );
  }

  /** The checkout page's own path (and signed query), for the form shown again. */
  private pagePath(offer: Offer): string {
    const { checkout } = offer;
    if (!checkout) return `/checkout/buy/${offer.target.variant.uuid}`;
    // As the checkout's `url` (CheckoutSerializer), without the host.
    const url = new URL(
      this.signedUrls.sign(
        this.config.http.checkoutBaseUrl,
        `${CHECKOUT_PATH}/${checkout.id}`,
        checkout.expiresAt ? { expiresAt: checkout.expiresAt } : {},
      ),
    );
    return `${url.pathname}${url.search}`;
  }
}

/** Another submit of the same token wrote the order first (its identifier is unique). */
function isUniqueViolation(error: unknown): boolean {
  const cause =
    error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  const { code, constraint } = (cause ?? {}) as {
    code?: unknown;
    constraint?: unknown;
  };
  return code === '23505' && constraint === 'orders_identifier_key';
}
