import { Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import { type RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JSON_API_VERSION } from '../../http/json-api/document';
import { JsonApi } from '../../http/json-api/json-api.service';
import { assertOnlyParameters } from '../../http/json-api/list-query';
import { JsonApiBody } from '../../http/json-api/write-document';
import { SubscriptionItemUpdateAttributes } from './billing.dto';
import { SubscriptionItemSerializer } from './subscription-item.serializer';
import { SubscriptionItemService } from './subscription-item.service';

const pathId = (raw: string) => {
  const id = parseIntegerId(raw);
  if (id === null) throw AppError.notFound();
  return id;
};

@Controller('v1/subscription-items')
export class SubscriptionItemController {
  constructor(
    private readonly serializer: SubscriptionItemSerializer,
    private readonly items: SubscriptionItemService,
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

  @Get(':id/current-usage')
  async currentUsage(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    assertOnlyParameters(query, []);
    const meta = await this.items.currentUsage(principal, pathId(id));
    return { jsonapi: JSON_API_VERSION, meta };
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

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody({
      type: 'subscription-items',
      attributes: SubscriptionItemUpdateAttributes,
      update: true,
    })
    body: WriteDocument<SubscriptionItemUpdateAttributes>,
  ) {
    const item = await this.items.updateQuantity(
      principal,
      pathId(id),
      body.attributes,
    );
    return this.jsonApi.single(this.serializer, item, principal);
  }
}
