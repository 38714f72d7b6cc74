import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
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
    const discount = await this.serializer.findOne(principal, id);
    if (!discount) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, discount, principal, include);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<void> {
    const discountId = parseIntegerId(id);
    if (discountId === null) throw AppError.notFound();
    await this.discounts.delete(principal, discountId);
  }
}
