import {
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../http/auth/public.decorator';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { SameSiteFormGuard } from '../../http/html/same-site-form.guard';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { PurchaseLimiter } from '../../http/rate-limit/purchase-limiter';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import {
  CardNotice,
  PORTAL_STRIPE_CSP,
  renderCardPage,
} from './subscription-card.page';
import { PortalCardUpdates } from './portal-card-updates';
import { SubscriptionPortalService } from './subscription-portal.service';
import { BillingErrors } from './billing.errors';

const SUBSCRIPTION_ID = new IntegerIdPipe(BillingErrors.subscriptionNotFound);

/**
 * A Stripe store's "update payment method": the page's script asks the
 * signed setup route (same-site only) for the SetupIntent to confirm with
 * the Payment Element; Stripe.js brings the buyer back to the signed return
 * route (Stripe's parameters appended), which settles it (a no-op when the
 * webhook came first) and shows the page with the outcome. Both are limited
 * as purchases: a card check, declines weighted.
 */
@Controller('portal/subscriptions')
@Public()
export class SubscriptionCardController {
  constructor(
    private readonly cards: PortalCardUpdates,
    private readonly portal: SubscriptionPortalService,
    private readonly purchaseLimits: PurchaseLimiter,
  ) {}

  @Post(':id/payment-method/setup')
  @HttpCode(200)
  @RateLimit('purchase')
  @UseGuards(SignedUrlGuard, SameSiteFormGuard)
  @NotJsonApi()
  @Header('content-type', 'application/json')
  @Header('cache-control', 'no-store')
  async setup(@Param('id', SUBSCRIPTION_ID) id: number): Promise<string> {
    return JSON.stringify(await this.cards.start(id));
  }

  @Get(':id/payment-method/return')
  @RateLimit('purchase')
  @HtmlPage()
  async returned(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const result = await this.cards.returned(id, request.url);
    if (!result) throw BillingErrors.returnLinkInvalid();
    let notice: CardNotice;
    if (result.status === 'succeeded') {
      notice = { text: 'Your payment method was updated.', error: false };
    } else if (result.status === 'pending') {
      void reply.status(202);
      notice = {
        text: 'Your card has not been confirmed yet. If you confirmed it, reload this page in a moment.',
        error: false,
      };
    } else {
      await this.purchaseLimits.declined(request);
      void reply.status(402);
      notice = { text: result.reason, error: true };
    }
    const s = await this.portal.find(id);
    if (!s) throw BillingErrors.subscriptionNotFound();
    const stripe = await this.cards.stripeForm(id);
    if (stripe) void reply.header('content-security-policy', PORTAL_STRIPE_CSP);
    return renderCardPage(s, await this.portal.storeName(s), notice, stripe);
  }
}
