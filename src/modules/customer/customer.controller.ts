import {
  Controller,
  Get,
  HttpCode,
  Param,
  Patch,
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
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody({
      type: 'customers',
      attributes: UpdateCustomerAttributes,
      update: true,
    })
    body: WriteDocument<UpdateCustomerAttributes>,
  ) {
    const { tax_number: taxNumber, ...attributes } = body.attributes;
    const customer = await this.customers.update(principal, id, {
      ...attributes,
      taxNumber,
    });
    return this.jsonApi.single(this.serializer, customer, principal);
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
}
