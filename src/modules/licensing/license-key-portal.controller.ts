import { Controller, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../../http/auth/public.decorator';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { SameSiteFormGuard } from '../../http/html/same-site-form.guard';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { CustomerService } from '../customer/customer.service';
import { LicenseApiError } from './license-api.errors';
import { LicenseApiService } from './license-api.service';
import { LicenseKeyRepository } from './license-key.repository';
import { LicenseKeyErrors } from './license-key.errors';

/**
 * The customer portal's "deactivate" form of a license key's activation:
 * signed per instance (the CSRF token), same-site only, and done by the
 * License API's own deactivation (same row lock, same count). Answers with
 * the customer's portal again (303).
 */
@Controller('portal/license-keys')
@Public()
@UseGuards(SignedUrlGuard)
export class LicenseKeyPortalController {
  constructor(
    private readonly keys: LicenseKeyRepository,
    private readonly licenses: LicenseApiService,
    private readonly customers: CustomerService,
  ) {}

  @Post(':id/instances/:instance/deactivate')
  @RateLimit('page')
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  async deactivate(
    @Param('id', new IntegerIdPipe(LicenseKeyErrors.instanceNotFound))
    id: number,
    @Param('instance') instance: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const key = await this.keys.findKeyById(id);
    if (!key) throw LicenseKeyErrors.instanceNotFound();
    try {
      await this.licenses.deactivate({
        licenseKey: key.key,
        instanceId: instance,
      });
    } catch (error) {
      if (!(error instanceof LicenseApiError)) throw error;
      if (error.status === 404) throw LicenseKeyErrors.instanceNotFound();
      throw LicenseKeyErrors.deactivationRefused(error.message);
    }
    void reply
      .status(303)
      .header('location', this.customers.portalLink(key.customerId));
    return '';
  }
}
