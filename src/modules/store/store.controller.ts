import { Controller, Get, Param, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { CurrentPrincipal } from '../../http/auth/principal';
import type { Principal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import type { RawQuery } from '../../http/json-api/list-query';
import { StoreSerializer } from './store.serializer';

@Controller('v1/stores')
export class StoreController {
  constructor(
    private readonly stores: StoreSerializer,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.stores, query);
    const page = await this.stores.findPage(principal, listQuery);
    return this.jsonApi.list(this.stores, page, listQuery, principal);
  }

  @Get(':id')
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.stores, query);
    const store = await this.stores.findOne(principal, id);
    if (!store) throw AppError.notFound();
    return this.jsonApi.single(this.stores, store, principal, include);
  }
}
