import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { CreateDiscountAttributes } from './discount.dto';
import { DiscountSerializer } from './discount.serializer';
import { DiscountService } from './discount.service';

@Controller('v1/discounts')
export class DiscountController {
  constructor(
    private readonly serializer: DiscountSerializer,
    private readonly discounts: DiscountService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody({
      type: 'discounts',
      attributes: CreateDiscountAttributes,
      relationships: {
        store: { type: 'stores', required: true },
        variants: { type: 'variants', many: true },
      },
    })
    body: WriteDocument<CreateDiscountAttributes>,
  ) {
    const discount = await this.discounts.create(principal, body);
    return this.jsonApi.single(this.serializer, discount, principal);
  }

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

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
  ): Promise<void> {
    await this.discounts.delete(principal, id);
  }
}
