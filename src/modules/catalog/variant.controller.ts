import {
  Controller,
  Get,
  HttpCode,
  Param,
  Patch,
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
import { VARIANT_CREATE, VARIANT_UPDATE } from './catalog.dto';
import type { VariantAttributes, VariantUpdateAttributes } from './catalog.dto';
import { VariantSerializer } from './variant.serializer';
import { VariantService } from './variant.service';

@Controller('v1/variants')
export class VariantController {
  constructor(
    private readonly variants: VariantSerializer,
    private readonly service: VariantService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.variants, query);
    const page = await this.variants.findPage(principal, listQuery);
    return this.jsonApi.list(this.variants, page, listQuery, principal);
  }

  @Get(':id')
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.variants, query);
    const variant = await this.variants.findOne(principal, id);
    if (!variant) throw AppError.notFound();
    return this.jsonApi.single(this.variants, variant, principal, include);
  }

  @Post()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody(VARIANT_CREATE) body: WriteDocument<VariantAttributes>,
  ) {
    const variant = await this.service.create(
      principal,
      parseIntegerId(String(body.relationships.product)),
      body.attributes,
    );
    return this.jsonApi.single(this.variants, variant, principal);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody(VARIANT_UPDATE) body: WriteDocument<VariantUpdateAttributes>,
  ) {
    const variantId = parseIntegerId(id);
    if (variantId === null) throw AppError.notFound();
    const variant = await this.service.update(
      principal,
      variantId,
      body.attributes,
    );
    return this.jsonApi.single(this.variants, variant, principal);
  }
}
