import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { Public } from '../../http/auth/public.decorator';
import { metaDocument } from '../../http/json-api/document';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { parseWriteDocument } from '../../http/json-api/write-document';
import {
  InvoiceFieldsAttributes,
  invoiceFieldsFromRequest,
} from './invoice-fields';
import { InvoiceService } from './invoice.service';

@Controller()
export class InvoiceController {
  constructor(private readonly invoices: InvoiceService) {}

  /** `POST /v1/orders/:id/generate-invoice` and every other registered source. */
  @Post('v1/:type/:id/generate-invoice')
  @HttpCode(200)
  async generate(
    @CurrentPrincipal() principal: Principal,
    @Param('type') type: string,
    @Param('id') id: string,
    @Query() query: RawQuery,
    @Body() body: unknown,
  ) {
    const attributes =
      body === undefined || body === null || body === ''
        ? undefined
        : parseWriteDocument(body, {
            type,
            attributes: InvoiceFieldsAttributes,
          }).attributes;
    const fields = invoiceFieldsFromRequest(query, attributes);
    const url = await this.invoices.generate(principal, type, id, fields);
    return metaDocument({ urls: { download_invoice: url } });
  }

  /** The signed link: the PDF once rendered, 202 until then, 403 when tampered with. */
  @Get('invoices/:type/:id')
  @Public()
  @RateLimit('page')
  @NotJsonApi()
  @UseGuards(SignedUrlGuard)
  async download(
    @Param('type') type: string,
    @Param('id') id: string,
    @Query() query: RawQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const download = await this.invoices.download(type, id, query);
    // The URL is the credential: keep it out of caches and Referer headers.
    void reply
      .header('cache-control', 'private, no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff');
    if (!download.ready) {
      const seconds = String(download.retryAfterSeconds);
      void reply
        .status(202)
        .header('retry-after', seconds)
        // Browsers opening the link reload by themselves until the PDF is ready.
        .header('refresh', seconds)
        .header('content-type', 'text/plain; charset=utf-8');
      return `The invoice is being generated. Try again in ${seconds} seconds.\n`;
    }
    return new StreamableFile(download.stream, {
      type: 'application/pdf',
      length: download.size,
      disposition: `inline; filename="${download.filename}"`,
    });
  }
}
