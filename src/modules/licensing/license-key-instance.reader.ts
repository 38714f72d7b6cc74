import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKeyRepository } from './license-key.repository';
import { scopeOf } from './license-key.service';

/** How `license-key-instances` are found (registered in LicensingModule). */
@Injectable()
export class LicenseKeyInstanceReader implements Reader<LicenseKeyInstance> {
  constructor(private readonly repository: LicenseKeyRepository) {}

  findMany(principal: Principal, ids: number[]): Promise<LicenseKeyInstance[]> {
    return this.repository.findInstances(scopeOf(principal), ids);
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<LicenseKeyInstance>> {
    return this.repository.findInstancesPage(scopeOf(principal), query);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<LicenseKeyInstance[]> {
    return this.repository.findInstancesByFilter(
      scopeOf(principal),
      filter,
      values,
    );
  }
}
