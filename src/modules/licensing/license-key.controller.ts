import { Controller, Get, Param, Patch, Query } from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
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

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody({
      type: 'license-keys',
      attributes: UpdateLicenseKeyAttributes,
      update: true,
    })
    body: WriteDocument<UpdateLicenseKeyAttributes>,
  ) {
    const { attributes } = body;
    const key = await this.keys.update(principal, id, {
      activationLimit: attributes.activation_limit,
      expiresAt: attributes.expires_at,
      disabled: attributes.disabled,
    });
    return this.jsonApi.single(this.serializer, key, principal);
  }
}
