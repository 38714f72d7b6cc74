import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { PRICE_CREATE } from './catalog.dto';
import type { PriceAttributes } from './catalog.dto';
import { PriceSerializer } from './price.serializer';
import { PriceService } from './price.service';

/** Prices are immutable: no PATCH; a new price replaces the variant's current one. */
@Controller('v1/prices')
export class PriceController {
  constructor(
    private readonly prices: PriceSerializer,
    private readonly service: PriceService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.jsonApi.readList(this.prices, principal, query);
  }

  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.prices, principal, id, query);
  }

  @Post()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody(PRICE_CREATE) body: WriteDocument<PriceAttributes>,
  ) {
    const price = await this.service.create(
      principal,
      parseIntegerId(String(body.relationships.variant)),
      body.attributes,
    );
    return this.jsonApi.single(this.prices, price, principal);
  }
}
