import { Controller, Get, Param, Post, Query } from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { CreateCheckoutAttributes } from './checkout.dto';
import { CheckoutSerializer } from './checkout.serializer';
import { CheckoutService } from './checkout.service';

@Controller('v1/checkouts')
export class CheckoutController {
  constructor(
    private readonly serializer: CheckoutSerializer,
    private readonly checkouts: CheckoutService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody({
      type: 'checkouts',
      attributes: CreateCheckoutAttributes,
      relationships: {
        store: { type: 'stores', required: true },
        variant: { type: 'variants', required: true },
      },
    })
    body: WriteDocument<CreateCheckoutAttributes>,
  ) {
    const checkout = await this.checkouts.create(principal, body);
    return this.jsonApi.single(this.serializer, checkout, principal);
  }

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.jsonApi.readList(this.serializer, principal, query);
  }

  /** Checkout ids are UUIDs: the reader finds nothing for anything else. */
  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.serializer, principal, id, query);
  }
}
