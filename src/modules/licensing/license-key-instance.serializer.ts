import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKeyService } from './license-key.service';

/** JSON:API `license-key-instances`: 5 attributes. */
@Injectable()
export class LicenseKeyInstanceSerializer
  extends IntegerIdFinders<LicenseKeyInstance>
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
    keys: LicenseKeyService,
    private readonly jsonApi: JsonApi,
  ) {
    // LicenseKeyService serves two resource types; these are its finders for this one.
    super({
      findOne: (principal, id) => keys.findInstance(principal, id),
      findMany: (principal, ids) => keys.findInstances(principal, ids),
      findPage: (principal, query) => keys.findInstancesPage(principal, query),
      findByFilter: (principal, filter, values) =>
        keys.findInstancesByFilter(principal, filter, values),
    });
  }

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
}
