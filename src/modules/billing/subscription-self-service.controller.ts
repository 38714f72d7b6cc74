import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../common/app-error';
import { Public } from '../../http/auth/public.decorator';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { SameSiteFormGuard } from '../../http/html/same-site-form.guard';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import {
  PortalNotice,
  renderPlanQuote,
  renderSubscriptionPortal,
} from './subscription-portal.page';
import { SubscriptionSelfService } from './subscription-self-service';
import { BillingErrors } from './billing.errors';

const SUBSCRIPTION_ID = new IntegerIdPipe(BillingErrors.subscriptionNotFound);
const WHOLE_NUMBER = /^\s*\d{1,9}\s*$/;

/** A form field (or JSON member) as text; absent or not text is ''. */
function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' ? value : '';
}

/**
 * The subscription's portal page (`urls.customer_portal_update_subscription`)
 * and its self-service forms: cancel, resume, plan change (priced before it
 * is confirmed) and quantity. Each form posts to its own signed URL (the
 * CSRF token: only the page carries it) and same-site only; each change goes
 * through the API's services. A refusal is the page again with its message
 * and the error's status (422), never a 5xx.
 */
@Controller('portal/subscriptions')
@Public()
@UseGuards(SignedUrlGuard)
export class SubscriptionSelfServiceController {
  constructor(private readonly portal: SubscriptionSelfService) {}

  @Get(':id')
  @RateLimit('page')
  @HtmlPage()
  overview(@Param('id', SUBSCRIPTION_ID) id: number) {
    return this.page(id, null);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RateLimit('page')
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  cancel(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.act(reply, id, 'Your subscription was cancelled.', () =>
      this.portal.cancel(id),
    );
  }

  @Post(':id/resume')
  @HttpCode(200)
  @RateLimit('page')
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  resume(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.act(reply, id, 'Your subscription was resumed.', () =>
      this.portal.resume(id),
    );
  }

  /** Prices the change; nothing is written until the confirmation below. */
  @Post(':id/plan/preview')
  @HttpCode(200)
  @RateLimit('page')
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  async previewPlan(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    try {
      const quote = await this.portal.quote(id, variantIdOf(body));
      const model = await this.portal.page(id);
      if (!model) throw BillingErrors.subscriptionNotFound();
      return renderPlanQuote(model, quote);
    } catch (error) {
      return this.refused(reply, id, error);
    }
  }

  @Post(':id/plan')
  @HttpCode(200)
  @RateLimit('page')
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  changePlan(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.act(reply, id, 'Your plan was changed.', () =>
      this.portal.changePlan(id, variantIdOf(body)),
    );
  }

  @Post(':id/quantity')
  @HttpCode(200)
  @RateLimit('page')
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  changeQuantity(
    @Param('id', SUBSCRIPTION_ID) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.act(reply, id, 'Your quantity was updated.', async () => {
      const raw = field(body, 'quantity');
      // Not a whole number: NaN, refused with the plan's limits.
      await this.portal.changeQuantity(
        id,
        WHOLE_NUMBER.test(raw) ? Number(raw) : Number.NaN,
      );
    });
  }

  private async act(
    reply: FastifyReply,
    id: number,
    done: string,
    work: () => Promise<unknown>,
  ): Promise<string> {
    try {
      await work();
    } catch (error) {
      return this.refused(reply, id, error);
    }
    return this.page(id, { kind: 'success', text: done });
  }

  /** A 4xx refusal is the page with its message; anything else propagates. */
  private async refused(
    reply: FastifyReply,
    id: number,
    error: unknown,
  ): Promise<string> {
    if (
      !(error instanceof AppError) ||
      error.status >= 500 ||
      error.status === 404
    )
      throw error;
    void reply.status(error.status);
    const text = error.errors.map((e) => e.detail).join(' ');
    return this.page(id, { kind: 'error', text });
  }

  private async page(id: number, notice: PortalNotice | null): Promise<string> {
    const model = await this.portal.page(id);
    if (!model) throw BillingErrors.subscriptionNotFound();
    return renderSubscriptionPortal(model, notice);
  }
}

function variantIdOf(body: unknown): number {
  const raw = field(body, 'variant_id');
  if (!WHOLE_NUMBER.test(raw)) throw BillingErrors.planNotOffered();
  return Number(raw);
}
