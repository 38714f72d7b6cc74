import { Controller, Get, Param, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { EmailSerializer } from './email.serializer';

/** Beyond the spec, read only: the e-mail sent to buyers. */
@Controller('v1/emails')
export class EmailController {
  constructor(
    private readonly emails: EmailSerializer,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.emails, query);
    const page = await this.emails.findPage(principal, listQuery);
    return this.jsonApi.list(this.emails, page, listQuery, principal);
  }

  @Get(':id')
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.emails, query);
    const email = await this.emails.findOne(principal, id);
    if (!email) throw AppError.notFound();
    return this.jsonApi.single(this.emails, email, principal, include);
  }
}
