import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { EntityRows } from '../../database/entity-rows';
import { scoped } from '../../database/tenancy';
import { CatalogScope, loadPage } from './catalog-scope';
import { Price } from './price.entity';

const COLUMNS = {
  filters: { variant_id: 'variant_id' },
  sorts: ['created_at', 'updated_at'],
};

/** Every query for prices. Prices are only ever inserted. */
@Injectable()
export class PriceRepository {
  private readonly priceRows: EntityRows<Price>;

  constructor(
    @InjectRepository(Price) private readonly prices: Repository<Price>,
  ) {
    this.priceRows = new EntityRows(prices, 'price');
  }

  findInScope(scope: CatalogScope, ids: number[]): Promise<Price[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(
      this.prices
        .createQueryBuilder('price')
        .where('price.id IN (:...ids)', { ids }),
      'price',
      scope,
    ).getMany();
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<Price>> {
    return loadPage(
      this.prices.createQueryBuilder('price'),
      'price',
      scope,
      query,
      COLUMNS,
    );
  }

  findByVariants(
    scope: CatalogScope,
    variantIds: FilterValue[],
  ): Promise<Price[]> {
    return scoped(
      this.prices
        .createQueryBuilder('price')
        .where('price.variant_id IN (:...variantIds)', { variantIds })
        .orderBy('price.created_at', 'DESC')
        .addOrderBy('price.id', 'DESC'),
      'price',
      scope,
    ).getMany();
  }

  /** The current price of each variant of a product (unpriced variants have none). */
  findCurrentOfProduct(productId: number): Promise<Price[]> {
    return this.priceRows.query(
      `SELECT ${this.priceRows.select} FROM prices price
         JOIN variants variant ON variant.current_price_id = price.id
        WHERE variant.product_id = $1`,
      [productId],
      'prices.current-of-product',
    );
  }

  insert(manager: EntityManager, fields: Partial<Price>): Promise<Price> {
    const repository = manager.getRepository(Price);
    return repository.save(repository.create(fields));
  }
}
