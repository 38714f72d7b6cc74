import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Public } from '../../http/auth/public.decorator';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { renderCustomerPortal } from './customer-portal.page';
import { CustomerService } from './customer.service';

const NO_CUSTOMER = 'This customer does not exist.';

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
    @Param('id', new IntegerIdPipe(NO_CUSTOMER)) id: number,
  ): Promise<string> {
    const portal = await this.customers.portal(id);
    if (!portal) throw AppError.notFound(NO_CUSTOMER);
    return renderCustomerPortal(portal);
  }
}
