import {
  Body,
  Controller,
  Get,
  Param,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../http/auth/public.decorator';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { PurchaseLimiter } from '../../http/rate-limit/purchase-limiter';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { cardNumberRequired, isCardDeclined } from '../payment/payment.errors';
import { SameSiteFormGuard } from '../../http/html/same-site-form.guard';
import { SubscriptionView } from './billing-views';
import { PortalCardUpdates } from './portal-card-updates';
import { PORTAL_STRIPE_CSP, renderCardPage } from './subscription-card.page';
import { SubscriptionPortalService } from './subscription-portal.service';
import { BillingErrors } from './billing.errors';

const SUBSCRIPTION_ID = new IntegerIdPipe(BillingErrors.subscriptionNotFound);

/**
 * The page behind a subscription's `urls.update_payment_method` (signed, 24
 * hours); `urls.customer_portal_update_subscription` is
 * SubscriptionSelfServiceController's.
 */
@Controller('portal/subscriptions')
@Public()
@RateLimit('page')
@UseGuards(SignedUrlGuard)
export class SubscriptionPortalController {
  constructor(
    private readonly portal: SubscriptionPortalService,
    private readonly purchaseLimits: PurchaseLimiter,
    private readonly cards: PortalCardUpdates,
  ) {}

  /** A Stripe store's page carries the Payment Element (and the CSP that lets Stripe.js in). */
  @Get(':id/payment-method')
  @HtmlPage()
  async paymentMethod(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const s = await this.portal.find(id);
    if (!s) throw BillingErrors.subscriptionNotFound();
    const stripe = await this.cards.stripeForm(id);
    if (stripe) void reply.header('content-security-policy', PORTAL_STRIPE_CSP);
    return renderCardPage(s, await this.portal.storeName(s), null, stripe);
  }

  /**
   * Form fields or JSON: `card_number`. A card check, so limited as a
   * purchase: per client IP and per subscription, declines weighted.
   */
  @Post(':id/payment-method')
  @RateLimit('purchase')
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  async updatePaymentMethod(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<string> {
    const cardNumber =
      typeof body === 'object' && body !== null
        ? (body as Record<string, unknown>).card_number
        : undefined;
    if (typeof cardNumber !== 'string' || cardNumber.trim() === '') {
      throw cardNumberRequired();
    }
    let s: SubscriptionView;
    try {
      s = await this.portal.updatePaymentMethod(id, cardNumber);
    } catch (error) {
      if (isCardDeclined(error)) await this.purchaseLimits.declined(request);
      throw error;
    }
    return renderCardPage(
      s,
      await this.portal.storeName(s),
      { text: 'Your payment method was updated.', error: false },
      null,
    );
  }
}
