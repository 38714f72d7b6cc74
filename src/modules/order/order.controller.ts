import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { RefundAttributes } from './order.dto';
import { OrderSerializer } from './order.serializer';
import { OrderService } from './order.service';

@Controller('v1/orders')
export class OrderController {
  constructor(
    private readonly serializer: OrderSerializer,
    private readonly orders: OrderService,
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
    const order = await this.serializer.findOne(principal, id);
    if (!order) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, order, principal, include);
  }

  @Post(':id/refund')
  @HttpCode(200)
  async refund(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody({ type: 'orders', attributes: RefundAttributes, update: true })
    body: WriteDocument<RefundAttributes>,
  ) {
    const orderId = parseIntegerId(id);
    if (orderId === null) throw AppError.notFound();
    const order = await this.orders.refund(
      principal,
      orderId,
      body.attributes.amount,
    );
    return this.jsonApi.single(this.serializer, order, principal);
  }
}
