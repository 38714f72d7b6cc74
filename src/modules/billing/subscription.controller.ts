import { Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { SubscriptionUpdateAttributes } from './billing.dto';
import { SubscriptionSerializer } from './subscription.serializer';
import { SubscriptionService } from './subscription.service';

@Controller('v1/subscriptions')
export class SubscriptionController {
  constructor(
    private readonly serializer: SubscriptionSerializer,
    private readonly subscriptions: SubscriptionService,
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

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody({
      type: 'subscriptions',
      attributes: SubscriptionUpdateAttributes,
      update: true,
    })
    body: WriteDocument<SubscriptionUpdateAttributes>,
  ) {
    const subscription = await this.subscriptions.update(
      principal,
      id,
      body.attributes,
    );
    return this.jsonApi.single(this.serializer, subscription, principal);
  }

  @Delete(':id')
  async cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
  ) {
    const subscription = await this.subscriptions.cancel(principal, id);
    return this.jsonApi.single(this.serializer, subscription, principal);
  }
}
