import { Controller, Get, Param, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { LicenseKeyInstanceSerializer } from './license-key-instance.serializer';

@Controller('v1/license-key-instances')
export class LicenseKeyInstanceController {
  constructor(
    private readonly serializer: LicenseKeyInstanceSerializer,
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
    const instance = await this.serializer.findOne(principal, id);
    if (!instance) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, instance, principal, include);
  }
}
