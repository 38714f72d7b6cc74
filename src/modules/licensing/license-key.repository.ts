import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { EntityRows } from '../../database/entity-rows';
import { scoped, scopedListPage } from '../../database/tenancy';
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKey } from './license-key.entity';
import { LicenseKeyStatus, statusCondition } from './license-key.state';

/** Whose records a query may see: the API key's user and mode. */
export interface Scope {
  userId: number;
  testMode: boolean;
}

const KEY_FILTER_COLUMNS: Record<string, string> = {
  store_id: 'lk.store_id',
  order_id: 'lk.order_id',
  order_item_id: 'lk.order_item_id',
  product_id: 'lk.product_id',
  customer_id: 'lk.customer_id',
};

const INSTANCE_FILTER_COLUMNS: Record<string, string> = {
  license_key_id: 'instance.license_key_id',
};

// The only sort is id (the spec's order), so it is also the tie-breaker.
const KEY_SORTS = { id: 'lk.id' };
const INSTANCE_SORTS = { id: 'instance.id' };

/** Every query for license keys and their instances; no rules. */
@Injectable()
export class LicenseKeyRepository {
  private readonly keyRows: EntityRows<LicenseKey>;

  constructor(
    @InjectRepository(LicenseKey)
    private readonly keys: Repository<LicenseKey>,
    @InjectRepository(LicenseKeyInstance)
    private readonly instances: Repository<LicenseKeyInstance>,
  ) {
    this.keyRows = new EntityRows(keys, 'lk');
  }

  findKeysPage(
    scope: Scope,
    query: ListQuery,
    now: Date,
  ): Promise<Page<LicenseKey>> {
    const builder = this.keys.createQueryBuilder('lk');
    for (const [name, value] of Object.entries(query.filters)) {
      if (name === 'status') {
        builder.andWhere(statusCondition('lk', value as LicenseKeyStatus), {
          now,
        });
      } else {
        builder.andWhere(`${KEY_FILTER_COLUMNS[name]} = :${name}`, {
          [name]: value,
        });
      }
    }
    return scopedListPage(builder, 'lk', KEY_SORTS, query, scope);
  }

  findKeys(scope: Scope, ids: number[]): Promise<LicenseKey[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(this.keys.createQueryBuilder('lk'), 'lk', scope)
      .andWhere('lk.id IN (:...ids)', { ids })
      .orderBy('lk.id', 'ASC')
      .getMany();
  }

  findKeysByFilter(
    scope: Scope,
    filter: string,
    values: FilterValue[],
  ): Promise<LicenseKey[]> {
    const column = KEY_FILTER_COLUMNS[filter];
    if (!column) throw new Error(`license-keys cannot be listed by ${filter}`);
    if (values.length === 0) return Promise.resolve([]);
    return scoped(this.keys.createQueryBuilder('lk'), 'lk', scope)
      .andWhere(`${column} IN (:...values)`, { values })
      .orderBy('lk.id', 'ASC')
      .getMany();
  }

  /** A customer's keys (the customer belongs to one store and mode), oldest first. */
  findKeysOfCustomer(customer: {
    id: number;
    storeId: number;
    testMode: boolean;
  }): Promise<LicenseKey[]> {
    return scoped(this.keys.createQueryBuilder('lk'), 'lk', {
      storeId: customer.storeId,
      testMode: customer.testMode,
    })
      .andWhere('lk.customer_id = :customerId', { customerId: customer.id })
      .orderBy('lk.id', 'ASC')
      .getMany();
  }

  /** A key by id, for its signed portal link. */
  findKeyById(id: number): Promise<LicenseKey | null> {
    return this.keys.findOneBy({ id });
  }

  /** The instances of a customer's keys (one store and mode), oldest first. */
  instancesOfKeys(
    customer: { storeId: number; testMode: boolean },
    keyIds: number[],
  ): Promise<LicenseKeyInstance[]> {
    if (keyIds.length === 0) return Promise.resolve([]);
    return scoped(this.instances.createQueryBuilder('lki'), 'lki', {
      storeId: customer.storeId,
      testMode: customer.testMode,
    })
      .andWhere('lki.license_key_id IN (:...keyIds)', { keyIds })
      .orderBy('lki.id', 'ASC')
      .getMany();
  }

  /** An order's keys (its store and mode), oldest first. */
  findKeysOfOrder(order: {
    id: number;
    storeId: number;
    testMode: boolean;
  }): Promise<LicenseKey[]> {
    return scoped(this.keys.createQueryBuilder('lk'), 'lk', {
      storeId: order.storeId,
      testMode: order.testMode,
    })
      .andWhere('lk.order_id = :orderId', { orderId: order.id })
      .orderBy('lk.id', 'ASC')
      .getMany();
  }

  /** The key with this value, in any store and mode (the License API has no caller identity). */
  async findByKey(key: string): Promise<LicenseKey | null> {
    const [found] = await this.keyRows.query(
      `SELECT ${this.keyRows.select} FROM license_keys lk WHERE lk.key = $1`,
      [key],
      'license-keys.by-key',
    );
    return found ?? null;
  }

  /**
   * Locks the key's row until the transaction ends, so that activations and
   * deactivations of one key run one after another and the count holds.
   */
  lockByKey(manager: EntityManager, key: string): Promise<LicenseKey | null> {
    return manager
      .getRepository(LicenseKey)
      .createQueryBuilder('lk')
      .setLock('pessimistic_write')
      .where('lk.key = :key', { key })
      .getOne();
  }

  lockScoped(
    manager: EntityManager,
    scope: Scope,
    id: number,
  ): Promise<LicenseKey | null> {
    return scoped(
      manager.getRepository(LicenseKey).createQueryBuilder('lk'),
      'lk',
      scope,
    )
      .andWhere('lk.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  lockByOrderItem(
    manager: EntityManager,
    orderItemId: number,
  ): Promise<LicenseKey[]> {
    return manager
      .getRepository(LicenseKey)
      .createQueryBuilder('lk')
      .where('lk.order_item_id = :orderItemId', { orderItemId })
      .orderBy('lk.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
  }

  insertKeys(
    manager: EntityManager,
    keys: Partial<LicenseKey>[],
  ): Promise<LicenseKey[]> {
    const repository = manager.getRepository(LicenseKey);
    return repository.save(keys.map((fields) => repository.create(fields)));
  }

  saveKey(manager: EntityManager, key: LicenseKey): Promise<LicenseKey> {
    return manager.getRepository(LicenseKey).save(key);
  }

  async addInstance(
    manager: EntityManager,
    key: LicenseKey,
    fields: { identifier: string; name: string },
  ): Promise<LicenseKeyInstance> {
    const repository = manager.getRepository(LicenseKeyInstance);
    const instance = await repository.save(
      repository.create({
        licenseKeyId: key.id,
        storeId: key.storeId,
        testMode: key.testMode,
        ...fields,
      }),
    );
    await this.changeInstanceCount(manager, key, 1);
    return instance;
  }

  async removeInstance(
    manager: EntityManager,
    key: LicenseKey,
    instance: LicenseKeyInstance,
  ): Promise<void> {
    await manager.getRepository(LicenseKeyInstance).delete({ id: instance.id });
    await this.changeInstanceCount(manager, key, -1);
  }

  /** The caller holds the key's row lock, so the in-memory count stays exact. */
  private async changeInstanceCount(
    manager: EntityManager,
    key: LicenseKey,
    by: 1 | -1,
  ) {
    const now = new Date();
    await manager.query(
      `UPDATE license_keys SET instances_count = instances_count + $2, updated_at = $3 WHERE id = $1`,
      [key.id, by, now],
    );
    key.instancesCount += by;
    key.updatedAt = now;
  }

  findInstanceOfKey(
    licenseKeyId: number,
    identifier: string,
    manager?: EntityManager,
  ): Promise<LicenseKeyInstance | null> {
    const repository =
      manager?.getRepository(LicenseKeyInstance) ?? this.instances;
    return repository.findOneBy({ licenseKeyId, identifier });
  }

  findInstancesPage(
    scope: Scope,
    query: ListQuery,
  ): Promise<Page<LicenseKeyInstance>> {
    const builder = this.instances.createQueryBuilder('instance');
    for (const [name, value] of Object.entries(query.filters)) {
      builder.andWhere(`${INSTANCE_FILTER_COLUMNS[name]} = :${name}`, {
        [name]: value,
      });
    }
    return scopedListPage(builder, 'instance', INSTANCE_SORTS, query, scope);
  }

  findInstances(scope: Scope, ids: number[]): Promise<LicenseKeyInstance[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(
      this.instances.createQueryBuilder('instance'),
      'instance',
      scope,
    )
      .andWhere('instance.id IN (:...ids)', { ids })
      .orderBy('instance.id', 'ASC')
      .getMany();
  }

  findInstancesByFilter(
    scope: Scope,
    filter: string,
    values: FilterValue[],
  ): Promise<LicenseKeyInstance[]> {
    const column = INSTANCE_FILTER_COLUMNS[filter];
    if (!column)
      throw new Error(`license-key-instances cannot be listed by ${filter}`);
    if (values.length === 0) return Promise.resolve([]);
    return scoped(
      this.instances.createQueryBuilder('instance'),
      'instance',
      scope,
    )
      .andWhere(`${column} IN (:...values)`, { values })
      .orderBy('instance.id', 'ASC')
      .getMany();
  }
}
