import { Controller, Get, Param, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { OrderItemSerializer } from './order-item.serializer';

@Controller('v1/order-items')
export class OrderItemController {
  constructor(
    private readonly serializer: OrderItemSerializer,
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
    const item = await this.serializer.findOne(principal, id);
    if (!item) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, item, principal, include);
  }
}
