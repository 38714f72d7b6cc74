import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { ListQuery, Page } from '../../common/list-query';
import { listPage } from '../../database/list-page';
import { ownStores } from '../../database/tenancy';
import { Store } from './store.entity';

const SORT_COLUMNS: Record<string, string> = {
  name: 'store.name',
  created_at: 'store.created_at',
  updated_at: 'store.updated_at',
};

/** Every query for stores. Stores belong to a user and are visible in both modes. */
@Injectable()
export class StoreRepository {
  constructor(
    @InjectRepository(Store) private readonly stores: Repository<Store>,
  ) {}

  findOwned(userId: number, ids: number[]): Promise<Store[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return ownStores(this.stores.createQueryBuilder('store'), 'store', {
      userId,
    })
      .andWhere('store.id IN (:...ids)', { ids })
      .getMany();
  }

  findByIds(ids: number[]): Promise<Store[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.stores.findBy({ id: In(ids) });
  }

  findPage(userId: number, query: ListQuery): Promise<Page<Store>> {
    const builder = ownStores(
      this.stores.createQueryBuilder('store'),
      'store',
      {
        userId,
      },
    );
    return listPage(builder, 'store', SORT_COLUMNS, query);
  }

  findAllOwned(userId: number): Promise<Store[]> {
    return ownStores(this.stores.createQueryBuilder('store'), 'store', {
      userId,
    })
      .orderBy('store.name', 'ASC')
      .addOrderBy('store.id', 'ASC')
      .getMany();
  }

  slugExists(slug: string): Promise<boolean> {
    return this.stores.existsBy({ slug });
  }

  save(store: Store, manager?: EntityManager): Promise<Store> {
    return (manager ? manager.getRepository(Store) : this.stores).save(store);
  }

  create(fields: Partial<Store>): Store {
    return this.stores.create(fields);
  }
}
