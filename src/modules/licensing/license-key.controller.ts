import { Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { UpdateLicenseKeyAttributes } from './license-key.dto';
import { LicenseKeySerializer } from './license-key.serializer';
import { LicenseKeyService } from './license-key.service';

@Controller('v1/license-keys')
export class LicenseKeyController {
  constructor(
    private readonly serializer: LicenseKeySerializer,
    private readonly keys: LicenseKeyService,
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
    const key = await this.serializer.findOne(principal, id);
    if (!key) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, key, principal, include);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody({
      type: 'license-keys',
      attributes: UpdateLicenseKeyAttributes,
      update: true,
    })
    body: WriteDocument<UpdateLicenseKeyAttributes>,
  ) {
    const keyId = parseIntegerId(id);
    if (keyId === null) throw AppError.notFound();
    const { attributes } = body;
    const key = await this.keys.update(principal, keyId, {
      activationLimit: attributes.activation_limit,
      expiresAt: attributes.expires_at,
      disabled: attributes.disabled,
    });
    return this.jsonApi.single(this.serializer, key, principal);
  }
}
