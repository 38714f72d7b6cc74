import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { UsageRecordAttributes } from './billing.dto';
import { UsageRecordSerializer } from './usage-record.serializer';
import { UsageRecordService } from './usage-record.service';
import { BillingErrors } from './billing.errors';

@Controller('v1/usage-records')
export class UsageRecordController {
  constructor(
    private readonly serializer: UsageRecordSerializer,
    private readonly usage: UsageRecordService,
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
    const record = await this.serializer.findOne(principal, id);
    if (!record) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, record, principal, include);
  }

  @Post()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody({
      type: 'usage-records',
      attributes: UsageRecordAttributes,
      // The SDK sends `subscription-item`; the spec's table writes `subscription_item`.
      relationships: {
        'subscription-item': { type: 'subscription-items' },
        subscription_item: { type: 'subscription-items' },
      },
    })
    body: WriteDocument<UsageRecordAttributes>,
  ) {
    const itemId =
      body.relationships['subscription-item'] ??
      body.relationships.subscription_item;
    if (typeof itemId !== 'string') {
      throw BillingErrors.subscriptionItemRequired();
    }
    const record = await this.usage.create(principal, body.attributes, itemId);
    return this.jsonApi.single(this.serializer, record, principal);
  }
}
