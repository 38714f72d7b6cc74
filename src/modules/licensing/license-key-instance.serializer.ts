import { Injectable } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceType } from '../../http/json-api/resource';
import { LicenseKeyInstance } from './license-key-instance.entity';

/** JSON:API `license-key-instances`: 5 attributes. */
@Injectable()
export class LicenseKeyInstanceSerializer implements ResourceType<LicenseKeyInstance> {
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
