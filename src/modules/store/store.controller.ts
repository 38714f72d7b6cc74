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
import { STORE_CREATE, STORE_UPDATE } from './store.dto';
import type { StoreAttributes, StoreUpdateAttributes } from './store.dto';
import { StoreService } from './store.service';
import { StoreSerializer } from './store.serializer';
import type { TaxProviderName } from '../tax/tax-provider';

@Controller('v1/stores')
export class StoreController {
  constructor(
    private readonly stores: StoreSerializer,
    private readonly service: StoreService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody(STORE_CREATE) body: WriteDocument<StoreAttributes>,
  ) {
    const { name, slug, domain, currency, country } = body.attributes;
    const store = await this.service.create({
      userId: principal.userId,
      name,
      slug,
      domain,
      currency,
      country,
      mailFrom: body.attributes.mail_from,
      mailReplyTo: body.attributes.mail_reply_to,
      mailDisabledKinds: body.attributes.mail_disabled_kinds,
      taxInclusive: body.attributes.tax_inclusive,
      taxRegistrations: body.attributes.tax_registrations,
      taxProvider: body.attributes.tax_provider as TaxProviderName | undefined,
      legalName: body.attributes.legal_name,
      legalAddress: body.attributes.legal_address,
      taxNumbers: body.attributes.tax_numbers,
    });
    const view = await this.service.findOne(principal, store.id);
    return this.jsonApi.single(this.stores, view!, principal);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody(STORE_UPDATE) body: WriteDocument<StoreUpdateAttributes>,
  ) {
    const {
      stripe,
      mail_from,
      mail_reply_to,
      mail_disabled_kinds,
      tax_inclusive,
      tax_registrations,
      tax_provider,
      legal_name,
      legal_address,
      tax_numbers,
      ...attributes
    } = body.attributes;
    const store = await this.service.update(
      principal,
      id,
      {
        ...attributes,
        mailFrom: mail_from,
        mailReplyTo: mail_reply_to,
        mailDisabledKinds: mail_disabled_kinds,
        taxInclusive: tax_inclusive,
        taxRegistrations: tax_registrations,
        taxProvider: tax_provider as TaxProviderName | undefined,
        legalName: legal_name,
        legalAddress: legal_address,
        taxNumbers: tax_numbers,
      },
      stripe,
    );
    return this.jsonApi.single(this.stores, store, principal);
  }

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.jsonApi.readList(this.stores, principal, query);
  }

  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.stores, principal, id, query);
  }
}
