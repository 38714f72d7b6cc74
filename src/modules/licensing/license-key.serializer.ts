import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import {
  FilterValue,
  filterParsers,
  ListQuery,
} from '../../http/json-api/list-query';
import {
  Page,
  parseIntegerId,
  ResourceType,
} from '../../http/json-api/resource';
import { licenseKeyRenderer } from './license-key.renderer';
import type { LicenseKeyView } from './license-key.service';
import { LicenseKeyService } from './license-key.service';
import { LICENSE_KEY_STATUSES } from './license-key.state';

/** JSON:API `license-keys`. */
@Injectable()
export class LicenseKeySerializer
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
    private readonly keys: LicenseKeyService,
    private readonly jsonApi: JsonApi,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(key: LicenseKeyView) {
    return licenseKeyRenderer.id(key);
  }

  attributes(key: LicenseKeyView) {
    return licenseKeyRenderer.attributes(key);
  }

  findOne(principal: Principal, id: string) {
    const keyId = parseIntegerId(id);
    return keyId === null
      ? Promise.resolve(null)
      : this.keys.findOne(principal, keyId);
  }

  findMany(principal: Principal, ids: string[]) {
    return this.keys.findMany(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<LicenseKeyView>> {
    return this.keys.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.keys.findByFilter(principal, filter, values);
  }
}
