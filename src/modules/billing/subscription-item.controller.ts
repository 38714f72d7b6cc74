import { Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { type RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JSON_API_VERSION } from '../../http/json-api/document';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import { assertOnlyParameters } from '../../http/json-api/list-query';
import { JsonApiBody } from '../../http/json-api/write-document';
import { SubscriptionItemUpdateAttributes } from './billing.dto';
import { SubscriptionItemSerializer } from './subscription-item.serializer';
import { SubscriptionItemService } from './subscription-item.service';

@Controller('v1/subscription-items')
export class SubscriptionItemController {
  constructor(
    private readonly serializer: SubscriptionItemSerializer,
    private readonly items: SubscriptionItemService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.jsonApi.readList(this.serializer, principal, query);
  }

  @Get(':id/current-usage')
  async currentUsage(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    assertOnlyParameters(query, []);
    const meta = await this.items.currentUsage(principal, id);
    return { jsonapi: JSON_API_VERSION, meta };
  }

  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.serializer, principal, id, query);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody({
      type: 'subscription-items',
      attributes: SubscriptionItemUpdateAttributes,
      update: true,
    })
    body: WriteDocument<SubscriptionItemUpdateAttributes>,
  ) {
    const item = await this.items.updateQuantity(
      principal,
      id,
      body.attributes,
    );
    return this.jsonApi.single(this.serializer, item, principal);
  }
}
