import {
  Body,
  Controller,
  Get,
  Param,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Public } from '../../http/auth/public.decorator';
import { escapeHtml } from '../../http/html/html';
import { htmlPage } from '../../http/html/layout';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { PurchaseLimiter } from '../../http/rate-limit/purchase-limiter';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { cardNumberRequired, isCardDeclined } from '../payment/payment.errors';
import { SubscriptionView } from './billing-views';
import { STATUS_FORMATTED } from './subscription.state';
import { SubscriptionPortalService } from './subscription-portal.service';
import { BillingErrors } from './billing.errors';

const SUBSCRIPTION_ID = new IntegerIdPipe(BillingErrors.subscriptionNotFound);

const DATE = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeZone: 'UTC',
});

function render(s: SubscriptionView, notice: string | null): string {
  const card = s.cardLastFour
    ? `${s.cardBrand ?? 'card'} ending in ${s.cardLastFour}`
    : 'none on file';
  const next =
    s.status === 'cancelled' || s.status === 'expired'
      ? `Ends ${DATE.format(s.endsAt ?? s.renewsAt)}`
      : `Renews ${DATE.format(s.renewsAt)}`;
  return htmlPage(
    `${s.productName} subscription`,
    `<div class="intro"><h1>${escapeHtml(s.productName)} — ${escapeHtml(s.variantName)}</h1>
<p class="sub">${escapeHtml(STATUS_FORMATTED[s.status])} · ${escapeHtml(next)} · Card: ${escapeHtml(card)}</p></div>
${notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : ''}
<section>
<h2>Update payment method</h2>
<form method="post" action="${escapeHtml(s.urls.update_payment_method)}">
<label>Card number <input name="card_number" inputmode="numeric" autocomplete="cc-number" required></label>
<button type="submit">Save card</button>
</form>
</section>`,
  );
}

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
  ) {}

  @Get(':id/payment-method')
  @HtmlPage()
  paymentMethod(@Param('id', SUBSCRIPTION_ID) id: number) {
    return this.page(id);
  }

  /**
   * Form fields or JSON: `card_number`. A card check, so limited as a
   * purchase: per client IP and per subscription, declines weighted.
   */
  @Post(':id/payment-method')
  @RateLimit('purchase')
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
    return render(s, 'Your payment method was updated.');
  }

  private async page(id: number): Promise<string> {
    const s = await this.portal.find(id);
    if (!s) throw BillingErrors.subscriptionNotFound();
    return render(s, null);
  }
}
