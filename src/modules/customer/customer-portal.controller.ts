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
import { PortalNotice, renderCustomerPortal } from './customer-portal.page';
import { CustomerService } from './customer.service';
import { CustomerErrors } from './customer.errors';

const CUSTOMER_ID = new IntegerIdPipe(CustomerErrors.portalNotFound);

/** A form field as text; anything else is empty. */
function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * The page behind `urls.customer_portal`: the signed link is the credential.
 * Its billing form posts to its own signed URL (same-site posts only).
 */
@Controller('portal/customers')
@Public()
@RateLimit('page')
@UseGuards(SignedUrlGuard)
export class CustomerPortalController {
  constructor(private readonly customers: CustomerService) {}

  @Get(':id')
  @HtmlPage()
  page(@Param('id', CUSTOMER_ID) id: number): Promise<string> {
    return this.render(id, null);
  }

  /**
   * Form fields or JSON: `address_line_1`, `address_line_2`, `city`,
   * `region`, `zip`, `country`, `tax_number`. Saved through
   * `CustomerService` as PATCH /v1/customers saves them (same checks, same
   * re-taxed subscriptions and `subscription_updated` events); a refusal is
   * the page again with its message and status.
   */
  @Post(':id/billing')
  @HttpCode(200)
  @UseGuards(SameSiteFormGuard)
  @HtmlPage()
  async updateBilling(
    @Param('id', CUSTOMER_ID) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const address = [
      field(body, 'address_line_1'),
      field(body, 'address_line_2'),
    ]
      .map((line) => line.trim())
      .filter(Boolean)
      .join('\n');
    const country = field(body, 'country').trim().toUpperCase();
    try {
      await this.customers.updateBilling(id, {
        address,
        city: field(body, 'city'),
        region: field(body, 'region'),
        zip: field(body, 'zip'),
        country: country || null,
        taxNumber: field(body, 'tax_number'),
      });
    } catch (error) {
      if (
        !(error instanceof AppError) ||
        error.status >= 500 ||
        error.status === 404
      )
        throw error;
      void reply.status(error.status);
      return this.render(id, {
        kind: 'error',
        text: error.errors.map((e) => e.detail).join(' '),
      });
    }
    return this.render(id, {
      kind: 'success',
      text: 'Your billing details were saved.',
    });
  }

  private async render(
    id: number,
    notice: PortalNotice | null,
  ): Promise<string> {
    const portal = await this.customers.portal(id);
    if (!portal) throw CustomerErrors.portalNotFound();
    return renderCustomerPortal(portal, notice);
  }
}
