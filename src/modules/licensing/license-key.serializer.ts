import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { licenseKeyRenderer } from './license-key.renderer';
import type { LicenseKeyView } from './license-key.service';
import { LicenseKeyService } from './license-key.service';
import { LICENSE_KEY_STATUSES } from './license-key.state';

/** JSON:API `license-keys`. */
@Injectable()
export class LicenseKeySerializer
  extends IntegerIdFinders<LicenseKeyView>
  implements ResourceType<LicenseKeyView>, OnModuleInit
{
  readonly type = licenseKeyRenderer.type;
  readonly relationships = licenseKeyRenderer.relationships;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      order_id: filterParsers.id,
      order_item_id: filterParsers.id,
      product_id: filterParsers.id,
      status: filterParsers.oneOf(...LICENSE_KEY_STATUSES),
    },
    sorts: ['id'],
    defaultSort: 'id',
  };

  constructor(
    keys: LicenseKeyService,
    private readonly jsonApi: JsonApi,
  ) {
    super(keys);
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(key: LicenseKeyView) {
    return licenseKeyRenderer.id(key);
  }

  attributes(key: LicenseKeyView) {
    return licenseKeyRenderer.attributes(key);
  }
}
