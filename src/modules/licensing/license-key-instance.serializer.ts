import { Injectable, OnModuleInit } from '@nestjs/common';
import { formatTimestamp } from '../../common/timestamps';
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
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKeyService } from './license-key.service';

/** JSON:API `license-key-instances`: 5 attributes. */
@Injectable()
export class LicenseKeyInstanceSerializer
  implements ResourceType<LicenseKeyInstance>, OnModuleInit
{
  readonly type = 'license-key-instances';
  readonly relationships = {
    'license-key': {
      kind: 'one',
      type: 'license-keys',
      id: (instance: LicenseKeyInstance) => instance.licenseKeyId,
    },
  } as const;
  readonly list = {
    filters: { license_key_id: filterParsers.id },
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

  id(instance: LicenseKeyInstance) {
    return String(instance.id);
  }

  attributes(instance: LicenseKeyInstance) {
    return {
      license_key_id: instance.licenseKeyId,
      identifier: instance.identifier,
      name: instance.name,
      created_at: formatTimestamp(instance.createdAt),
      updated_at: formatTimestamp(instance.updatedAt),
    };
  }

  findOne(principal: Principal, id: string) {
    const instanceId = parseIntegerId(id);
    return instanceId === null
      ? Promise.resolve(null)
      : this.keys.findInstance(principal, instanceId);
  }

  findMany(principal: Principal, ids: string[]) {
    return this.keys.findInstances(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<LicenseKeyInstance>> {
    return this.keys.findInstancesPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.keys.findInstancesByFilter(principal, filter, values);
  }
}
