import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { InvoiceRefundAttributes } from './billing.dto';
import { SubscriptionInvoiceSerializer } from './subscription-invoice.serializer';
import { SubscriptionInvoiceService } from './subscription-invoice.service';

@Controller('v1/subscription-invoices')
export class SubscriptionInvoiceController {
  constructor(
    private readonly serializer: SubscriptionInvoiceSerializer,
    private readonly invoices: SubscriptionInvoiceService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.serializer, query);
    const page = await this.serializer.findPage(principal, listQuery);
    return this.jsonApi.list(this.serializer, page, listQuery, principal);
  }

  @Get(':id')
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.serializer, query);
    const invoice = await this.serializer.findOne(principal, id);
    if (!invoice) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, invoice, principal, include);
  }

  @Post(':id/refund')
  @HttpCode(200)
  async refund(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody({
      type: 'subscription-invoices',
      attributes: InvoiceRefundAttributes,
      update: true,
    })
    body: WriteDocument<InvoiceRefundAttributes>,
  ) {
    const invoiceId = parseIntegerId(id);
    if (invoiceId === null) throw AppError.notFound();
    const invoice = await this.invoices.refund(
      principal,
      invoiceId,
      body.attributes.amount,
    );
    return this.jsonApi.single(this.serializer, invoice, principal);
  }
}
