import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Logger,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Clock } from '../../common/clock';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Public } from '../../http/auth/public.decorator';
import { escapeHtml } from '../../http/html/html';
import { htmlPage } from '../../http/html/layout';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { clientAddressKey } from '../../http/rate-limit/client-address';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import {
  RateLimitHit,
  RateLimitStore,
} from '../../http/rate-limit/rate-limit.store';
import { rateLimited } from '../../http/rate-limit/rate-limited';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import {
  PortalSignIn,
  SIGN_IN_LIMITS,
  SIGN_IN_LINK_MS,
} from './portal-sign-in';

const TITLE = 'Sign in to your account';

/**
 * The customer portal's sign-in page. The form posts to a signed URL (the
 * portal's forms do the same: the signature stands in for a CSRF token, and
 * only a page this server rendered within the hour carries one).
 */
@Controller('portal/sign-in')
@Public()
@RateLimit('page')
export class PortalSignInController {
  private readonly logger = new Logger(PortalSignInController.name);

  constructor(
    private readonly signIn: PortalSignIn,
    private readonly limits: RateLimitStore,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @HtmlPage()
  page(): string {
    const action = this.signedUrls.sign(
      this.config.http.publicBaseUrl,
      '/portal/sign-in',
      { expiresAt: new Date(this.clock.now().getTime() + SIGN_IN_LINK_MS) },
    );
    return htmlPage(
      TITLE,
      `<h1>${TITLE}</h1>
<p class="sub">Enter the e-mail address you bought with. We will send you a link to your orders, downloads, license keys and subscriptions.</p>
<form method="post" action="${escapeHtml(action)}">
<label>E-mail address <input name="email" type="email" autocomplete="email" required></label>
<button type="submit">Send me a sign-in link</button>
</form>`,
    );
  }

  /**
   * Form fields or JSON: `email`. The same 200 page whether the address
   * belongs to a customer or not; 429 past the per-address or per-IP limit.
   */
  @Post()
  @HttpCode(200)
  @UseGuards(SignedUrlGuard)
  @HtmlPage()
  async request(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<string> {
    const raw =
      typeof body === 'object' && body !== null
        ? (body as Record<string, unknown>).email
        : undefined;
    const address = PortalSignIn.address(raw);
    await this.admit(address, request.ip);
    await this.signIn.request(address);
    return htmlPage(
      TITLE,
      `<h1>Check your inbox</h1>
<p class="sub">If there is an account for that address, we have sent it a sign-in link. The link works for one hour.</p>`,
    );
  }

  /**
   * Counts the request against its client IP and then its address (in the
   * rate-limit store, shared by every replica); 429 past either limit.
   */
  private async admit(address: string, ip: string): Promise<void> {
    const { perAddress, perIp, windowMs } = SIGN_IN_LIMITS;
    let byIp: RateLimitHit;
    let byAddress: RateLimitHit | null = null;
    try {
      byIp = await this.limits.add(
        `sign-in:ip:${clientAddressKey(ip)}`,
        windowMs,
        1,
      );
      if (byIp.count <= perIp)
        byAddress = await this.limits.add(
          `sign-in:address:${address}`,
          windowMs,
          1,
        );
    } catch (error) {
      // As for every other limit: an unreachable store lets requests through.
      this.logger.warn({ err: error }, 'Sign-in limits unavailable');
      return;
    }
    if (byIp.count > perIp)
      throw rateLimited(
        `Too many sign-in requests from this network (${perIp} an hour).`,
        byIp.resetInMs,
      );
    if (byAddress && byAddress.count > perAddress)
      throw rateLimited(
        `Too many sign-in requests for this address (${perAddress} an hour).`,
        byAddress.resetInMs,
      );
  }
}
