import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { Public } from '../../http/auth/public.decorator';
import { ErrorFormat } from '../../http/errors/error-format';
import { JSON_API_MEDIA_TYPE } from '../../http/json-api/document';
import { JsonApi } from '../../http/json-api/json-api.service';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { PurchaseLimiter } from '../../http/rate-limit/purchase-limiter';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { OrderSerializer } from '../order/order.serializer';
import { isCardDeclined } from '../payment/payment.errors';
import { HostedCheckoutService } from './hosted-checkout.service';
import { errorPage, HostedResponse } from './hosted-pages';
import { CheckoutErrors } from './checkout.errors';
import { STRIPE_PAGE_CSP } from './checkout-page-stripe';
import { HostedPaymentService } from './hosted-payment.service';
import { isObject } from './purchase-input';
import { ReceiptPageService } from './receipt-page.service';

// Pages are self-contained: inline styles, images from anywhere, no scripts
// (pages with Stripe's Payment Element: STRIPE_PAGE_CSP).
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; base-uri 'none'; frame-ancestors *";

/**
 * The buyer-facing pages: the hosted checkout at a checkout's signed `url`
 * and at each variant's `buy_now_url`, and the receipt page. No API key;
 * the signed link or the variant's public UUID is the credential. Pages
 * count per client IP; purchases per client IP and per checkout, declined
 * cards reported here to the PurchaseLimiter (the service knows nothing of
 * HTTP limits).
 */
@Public()
@NotJsonApi()
@Controller()
export class HostedCheckoutController {
  constructor(
    private readonly hosted: HostedCheckoutService,
    private readonly receipts: ReceiptPageService,
    private readonly hostedPayments: HostedPaymentService,
    private readonly purchaseLimits: PurchaseLimiter,
    private readonly jsonApi: JsonApi,
    private readonly orders: OrderSerializer,
  ) {}

  @Get('checkout/:kind/:id')
  @RateLimit('page')
  @ErrorFormat({ kind: 'html' })
  async page(
    @Param('kind') kind: string,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.respond(reply, async () => {
      const offer = await this.hosted.offer(
        checkoutKind(kind),
        id,
        request.url,
      );
      const paused = (await this.purchaseLimits.pausedForMs(request)) > 0;
      return this.hosted.page(offer, request.url, paused);
    });
  }

  /**
   * A form post answers pages (errors too); a JSON body the order or a
   * JSON:API error; a JSON body with the page's `submission` token (the
   * Stripe page's script) the intent to confirm with Stripe.js.
   */
  @Post('checkout/:kind/:id')
  @RateLimit('purchase')
  @ErrorFormat({ kind: 'html' })
  async submit(
    @Param('kind') kind: string,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const json = /json/i.test(request.headers['content-type'] ?? '');
    const run = async () => {
      const offer = await this.hosted.offer(
        checkoutKind(kind),
        id,
        request.url,
      );
      const body = request.body;
      if (json && isObject(body) && body.submission !== undefined)
        return {
          kind: 'json' as const,
          body: await this.hostedPayments.submit(offer, body),
        };
      return this.hosted.submit(offer, request.url, body, json);
    };
    // The machine path answers JSON:API errors through the global filter.
    const response = await this.countingDeclines(
      request,
      json ? run() : this.attempt(run),
    );
    return this.send(reply, response);
  }

  @Get('my-orders/:identifier')
  @RateLimit('page')
  @ErrorFormat({ kind: 'html' })
  async receipt(
    @Param('identifier') identifier: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.respond(reply, () =>
      this.receipts.receipt(identifier, request.url),
    );
  }

  /**
   * Where Stripe.js brings the buyer back after confirming a hosted
   * payment (signed; Stripe's own parameters appended): settles it, then
   * the receipt, or the checkout again with the refusal.
   */
  @Get('my-orders/:identifier/return')
  @RateLimit('purchase')
  @ErrorFormat({ kind: 'html' })
  async paymentReturn(
    @Param('identifier') identifier: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const response = await this.attempt(() =>
      this.hostedPayments.returned(identifier, request.url),
    );
    if (response.kind === 'html' && response.declined)
      await this.purchaseLimits.declined(request);
    return this.send(reply, response);
  }

  /** HTML routes: a refusal is a page too, never a JSON document. */
  private async respond(
    reply: FastifyReply,
    work: () => Promise<HostedResponse>,
  ) {
    return this.send(reply, await this.attempt(work));
  }

  private async attempt(
    work: () => Promise<HostedResponse>,
  ): Promise<HostedResponse> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return errorPage(error);
    }
  }

  /** Reports a declined card (a page or a JSON:API error) before answering it. */
  private async countingDeclines(
    request: FastifyRequest,
    outcome: Promise<HostedResponse>,
  ): Promise<HostedResponse> {
    try {
      const response = await outcome;
      if (response.kind === 'html' && response.declined)
        await this.purchaseLimits.declined(request);
      return response;
    } catch (error) {
      if (isCardDeclined(error)) await this.purchaseLimits.declined(request);
      throw error;
    }
  }

  private send(reply: FastifyReply, response: HostedResponse) {
    void reply.header('cache-control', 'no-store');
    if (response.kind === 'redirect') {
      void reply.status(303).header('location', response.location);
      return '';
    }
    if (response.kind === 'json') {
      void reply.status(200).header('content-type', 'application/json');
      return JSON.stringify(response.body);
    }
    if (response.kind === 'order') {
      void reply.status(201).header('content-type', JSON_API_MEDIA_TYPE);
      // The buyer is not an API principal: the document has no includes.
      return this.jsonApi.single(this.orders, response.order);
    }
    void reply
      .status(response.status)
      .header('content-type', 'text/html; charset=utf-8')
      .header(
        'content-security-policy',
        response.stripe ? STRIPE_PAGE_CSP : CSP,
      )
      .header('x-content-type-options', 'nosniff')
      // Keeps the signed URL from leaking to other origins; `no-referrer` would
      // make Chromium send `Origin: null` on the form POST, which is refused.
      .header('referrer-policy', 'same-origin');
    return response.html;
  }
}

function checkoutKind(kind: string): 'custom' | 'buy' {
  if (kind === 'custom' || kind === 'buy') return kind;
  throw CheckoutErrors.unknownKind();
}
