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
import { isCardDeclined } from '../payment/payment.errors';
import {
  HostedCheckoutService,
  HostedResponse,
} from './hosted-checkout.service';
import { CheckoutErrors } from './checkout.errors';

// Pages are self-contained: inline styles, images from anywhere, no scripts.
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
    private readonly purchaseLimits: PurchaseLimiter,
    private readonly jsonApi: JsonApi,
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

  /** A form post answers pages (errors too); a JSON body the order or a JSON:API error. */
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
      return this.hosted.submit(offer, request.url, request.body, json);
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
      this.hosted.receipt(identifier, request.url),
    );
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
      return this.hosted.errorPage(error);
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
    if (response.kind === 'order') {
      const orders = this.jsonApi.resource('orders');
      if (!orders) throw new Error('The orders resource is not registered');
      void reply.status(201).header('content-type', JSON_API_MEDIA_TYPE);
      // The buyer is not an API principal; the document has no includes.
      return this.jsonApi.single(orders, response.order, {
        userId: 0,
        apiKeyId: 0,
        testMode: response.testMode,
      });
    }
    void reply
      .status(response.status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', CSP)
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
