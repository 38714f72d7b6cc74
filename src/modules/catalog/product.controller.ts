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
import { PRODUCT_CREATE, PRODUCT_UPDATE } from './catalog.dto';
import type { ProductAttributes, ProductUpdateAttributes } from './catalog.dto';
import { ProductSerializer } from './product.serializer';
import { ProductService } from './product.service';

@Controller('v1/products')
export class ProductController {
  constructor(
    private readonly products: ProductSerializer,
    private readonly service: ProductService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.products, query);
    const page = await this.products.findPage(principal, listQuery);
    return this.jsonApi.list(this.products, page, listQuery, principal);
  }

  @Get(':id')
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.products, query);
    const product = await this.products.findOne(principal, id);
    if (!product) throw AppError.notFound();
    return this.jsonApi.single(this.products, product, principal, include);
  }

  @Post()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody(PRODUCT_CREATE) body: WriteDocument<ProductAttributes>,
  ) {
    const product = await this.service.create(
      principal,
      parseIntegerId(String(body.relationships.store)),
      body.attributes,
    );
    return this.jsonApi.single(this.products, product, principal);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody(PRODUCT_UPDATE) body: WriteDocument<ProductUpdateAttributes>,
  ) {
    const productId = parseIntegerId(id);
    if (productId === null) throw AppError.notFound();
    const product = await this.service.update(
      principal,
      productId,
      body.attributes,
    );
    return this.jsonApi.single(this.products, product, principal);
  }
}
