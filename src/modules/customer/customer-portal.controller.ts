import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { Public } from '../../http/auth/public.decorator';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
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
  async page(
    @Param('id', new IntegerIdPipe(CustomerErrors.portalNotFound)) id: number,
  ): Promise<string> {
    const portal = await this.customers.portal(id);
    if (!portal) throw CustomerErrors.portalNotFound();
    return renderCustomerPortal(portal);
  }
}
