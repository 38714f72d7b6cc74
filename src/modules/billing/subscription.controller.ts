import { Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { SubscriptionUpdateAttributes } from './billing.dto';
import { SubscriptionSerializer } from './subscription.serializer';
import { SubscriptionService } from './subscription.service';

const pathId = (raw: string) => {
  const id = parseIntegerId(raw);
  if (id === null) throw AppError.notFound();
  return id;
};

@Controller('v1/subscriptions')
export class SubscriptionController {
  constructor(
    private readonly serializer: SubscriptionSerializer,
    private readonly subscriptions: SubscriptionService,
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
    const subscription = await this.serializer.findOne(principal, id);
    if (!subscription) throw AppError.notFound();
    return this.jsonApi.single(
      this.serializer,
      subscription,
      principal,
      include,
    );
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody({
      type: 'subscriptions',
      attributes: SubscriptionUpdateAttributes,
      update: true,
    })
    body: WriteDocument<SubscriptionUpdateAttributes>,
  ) {
    const subscription = await this.subscriptions.update(
      principal,
      pathId(id),
      body.attributes,
    );
    return this.jsonApi.single(this.serializer, subscription, principal);
  }

  @Delete(':id')
  async cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ) {
    const subscription = await this.subscriptions.cancel(principal, pathId(id));
    return this.jsonApi.single(this.serializer, subscription, principal);
  }
}
