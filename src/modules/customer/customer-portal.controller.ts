import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { parseIntegerId } from '../../common/ids';
import { Public } from '../../http/auth/public.decorator';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { renderCustomerPortal } from './customer-portal.page';
import { CustomerService } from './customer.service';
import { CustomerErrors } from './customer.errors';

/** The page behind `urls.customer_portal`: the signed link is the credential. */
@Controller('portal/customers')
@Public()
@RateLimit('page')
@UseGuards(SignedUrlGuard)
export class CustomerPortalController {
  constructor(private readonly customers: CustomerService) {}

  @Get(':id')
  @HtmlPage()
  async page(@Param('id') id: string): Promise<string> {
    const customerId = parseIntegerId(id);
    const portal =
      customerId === null ? null : await this.customers.portal(customerId);
    if (!portal) throw CustomerErrors.portalNotFound();
    return renderCustomerPortal(portal);
  }
}
