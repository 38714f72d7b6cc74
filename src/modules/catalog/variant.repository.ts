import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { EntityRows } from '../../database/entity-rows';
import { scoped, sqlScope } from '../../database/tenancy';
import { CatalogScope, loadPage } from './catalog-scope';
import { Price } from './price.entity';
import { Variant } from './variant.entity';

const COLUMNS = {
  filters: { product_id: 'product_id', status: 'status' },
  sorts: ['sort', 'name', 'created_at', 'updated_at'],
};

/** Every query for variants. */
@Injectable()
export class VariantRepository {
  private readonly variantRows: EntityRows<Variant>;

  constructor(
    @InjectRepository(Variant) private readonly variants: Repository<Variant>,
  ) {
    this.variantRows = new EntityRows(variants, 'variant');
  }

  /** `manager`: inside a transaction, read through it (never a second connection). */
  findInScope(
    scope: CatalogScope,
    ids: number[],
    manager: EntityManager = this.variants.manager,
  ): Promise<Variant[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(
      manager
        .getRepository(Variant)
        .createQueryBuilder('variant')
        .where('variant.id IN (:...ids)', { ids }),
      'variant',
      scope,
    ).getMany();
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<Variant>> {
    return loadPage(
      this.variants.createQueryBuilder('variant'),
      'variant',
      scope,
      query,
      COLUMNS,
    );
  }

  findByFilter(
    scope: CatalogScope,
    filter: 'product_id' | 'status',
    values: FilterValue[],
  ): Promise<Variant[]> {
    return scoped(
      this.variants
        .createQueryBuilder('variant')
        .where(`variant.${filter} IN (:...values)`, { values })
        .orderBy('variant.sort')
        .addOrderBy('variant.id'),
      'variant',
      scope,
    ).getMany();
  }

  /** A variant by its public uuid (buy_now_url), in whichever mode it lives. */
  async findByUuid(uuid: string): Promise<Variant | null> {
    if (
      !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(
        uuid,
      )
    )
      return null;
    const [variant] = await this.variantRows.query(
      `SELECT ${this.variantRows.select} FROM variants variant WHERE variant.uuid = $1`,
      [uuid.toLowerCase()],
      'variants.by-uuid',
    );
    return variant ?? null;
  }

  /** Every variant of `variant`'s product (itself included), in display order. */
  findSiblings(variant: Variant): Promise<Variant[]> {
    const params: unknown[] = [variant.productId];
    const scope = sqlScope(
      { storeId: variant.storeId, testMode: variant.testMode },
      params,
    );
    return this.variantRows.query(
      `SELECT ${this.variantRows.select} FROM variants variant
        WHERE variant.product_id = $1 AND ${scope.on('variant')}
        ORDER BY variant.sort, variant.id`,
      params,
      'variants.siblings',
    );
  }

  /** Locks a variant so a new price and its `current_price_id` change together. */
  lockInScope(
    manager: EntityManager,
    scope: CatalogScope,
    id: number,
  ): Promise<Variant | null> {
    return scoped(
      manager
        .getRepository(Variant)
        .createQueryBuilder('variant')
        .setLock('pessimistic_write')
        .where('variant.id = :id', { id }),
      'variant',
      scope,
    ).getOne();
  }

  ofProduct(manager: EntityManager, productId: number): Promise<Variant[]> {
    return manager
      .getRepository(Variant)
      .find({ where: { productId }, order: { sort: 'ASC', id: 'ASC' } });
  }

  save(manager: EntityManager, variant: Variant): Promise<Variant> {
    return manager.getRepository(Variant).save(variant);
  }

  create(fields: Partial<Variant>): Variant {
    return this.variants.create(fields);
  }

  /** Current prices by id, for the deprecated price attributes of a page of variants. */
  async prices(ids: number[]): Promise<Map<number, Price>> {
    if (ids.length === 0) return new Map();
    const prices = await this.variants.manager
      .getRepository(Price)
      .createQueryBuilder('price')
      .where('price.id IN (:...ids)', { ids })
      .getMany();
    return new Map(prices.map((price) => [price.id, price]));
  }
}
