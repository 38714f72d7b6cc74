import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
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
  list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.jsonApi.readList(this.serializer, principal, query);
  }

  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.serializer, principal, id, query);
  }

  @Post(':id/refund')
  @HttpCode(200)
  async refund(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody({
      type: 'subscription-invoices',
      attributes: InvoiceRefundAttributes,
      update: true,
    })
    body: WriteDocument<InvoiceRefundAttributes>,
  ) {
    const invoice = await this.invoices.refund(
      principal,
      id,
      body.attributes.amount,
    );
    return this.jsonApi.single(this.serializer, invoice, principal);
  }
}
