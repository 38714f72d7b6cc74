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
import {
  CreateCustomerAttributes,
  UpdateCustomerAttributes,
} from './customer.dto';
import { CustomerSerializer } from './customer.serializer';
import { CustomerService } from './customer.service';

@Controller('v1/customers')
export class CustomerController {
  constructor(
    private readonly customers: CustomerService,
    private readonly serializer: CustomerSerializer,
    private readonly jsonApi: JsonApi,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody({
      type: 'customers',
      attributes: CreateCustomerAttributes,
      relationships: { store: { type: 'stores', required: true } },
    })
    body: WriteDocument<CreateCustomerAttributes>,
  ) {
    const { name, email, city, region, country } = body.attributes;
    const customer = await this.customers.create(principal, {
      storeId: body.relationships.store as string,
      name,
      email,
      city,
      region,
      country,
    });
    return this.jsonApi.single(this.serializer, customer, principal);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody({
      type: 'customers',
      attributes: UpdateCustomerAttributes,
      update: true,
    })
    body: WriteDocument<UpdateCustomerAttributes>,
  ) {
    const customerId = parseIntegerId(id);
    if (customerId === null) throw AppError.notFound();
    const customer = await this.customers.update(
      principal,
      customerId,
      body.attributes,
    );
    return this.jsonApi.single(this.serializer, customer, principal);
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
    const customer = await this.serializer.findOne(principal, id);
    if (!customer) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, customer, principal, include);
  }
}
