import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ListQuery, Page } from '../../common/list-query';
import { EntityRows } from '../../database/entity-rows';
import { matchIds, poolQuery } from '../../database/pool-query';
import { scoped, sqlScope } from '../../database/tenancy';
import { CatalogScope, loadPage } from './catalog-scope';
import { PriceTier } from './price.entity';
import { headlineUnitPrice } from './price-rules';
import { Product } from './product.entity';
import { VariantPriceSummary } from './product-pricing';

const COLUMNS = {
  filters: { store_id: 'store_id' },
  sorts: ['name', 'created_at', 'updated_at'],
};

/** Every query for products. */
@Injectable()
export class ProductRepository {
  private readonly productRows: EntityRows<Product>;

  constructor(
    @InjectRepository(Product) private readonly products: Repository<Product>,
  ) {
    this.productRows = new EntityRows(products, 'p');
  }

  /**
   * Products by id (`GET /v1/products/:id`, includes): raw SQL, as this is
   * the hottest read; the query builder costs more CPU than the query. One
   * prepared statement per scope shape, so each has a generic plan.
   */
  async findInScope(scope: CatalogScope, ids: number[]): Promise<Product[]> {
    if (ids.length === 0) return [];
    const id = matchIds('p.id', ids, 1);
    const params: unknown[] = [id.value];
    const where = `${id.sql} AND ${sqlScope(scope, params).on('p')}`;
    const shape = `${id.shape}${scope.userId !== undefined ? '-of-user' : ''}${scope.storeId !== undefined ? '-of-store' : ''}`;
    return this.productRows.query(
      `SELECT ${this.productRows.select} FROM products p WHERE ${where}`,
      params,
      `products.${shape}`,
    );
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<Product>> {
    return loadPage(
      this.products.createQueryBuilder('product'),
      'product',
      scope,
      query,
      COLUMNS,
    );
  }

  findByStores(scope: CatalogScope, storeIds: number[]): Promise<Product[]> {
    return scoped(
      this.products
        .createQueryBuilder('product')
        .where('product.store_id IN (:...storeIds)', { storeIds })
        .orderBy('product.name')
        .addOrderBy('product.id'),
      'product',
      scope,
    ).getMany();
  }

  findBySlug(
    scope: CatalogScope,
    storeId: number,
    slug: string,
  ): Promise<Product | null> {
    return scoped(
      this.products
        .createQueryBuilder('product')
        .where('product.store_id = :storeId', { storeId })
        .andWhere('product.slug = :slug', { slug }),
      'product',
      scope,
    ).getOne();
  }

  /** Locks the product for a change to its variants (sort order, the default-variant rule). */
  lockInScope(
    manager: EntityManager,
    scope: CatalogScope,
    id: number,
  ): Promise<Product | null> {
    return scoped(
      manager
        .getRepository(Product)
        .createQueryBuilder('product')
        .setLock('pessimistic_write')
        .where('product.id = :id', { id }),
      'product',
      scope,
    ).getOne();
  }

  slugTaken(
    manager: EntityManager,
    product: Pick<Product, 'storeId' | 'testMode' | 'slug'>,
    exceptId?: number,
  ): Promise<boolean> {
    const builder = scoped(
      manager.getRepository(Product).createQueryBuilder('product'),
      'product',
      { storeId: product.storeId, testMode: product.testMode },
    ).andWhere('product.slug = :slug', { slug: product.slug });
    if (exceptId !== undefined)
      builder.andWhere('product.id <> :exceptId', { exceptId });
    return builder.getExists();
  }

  save(manager: EntityManager, product: Product): Promise<Product> {
    return manager.getRepository(Product).save(product);
  }

  create(fields: Partial<Product>): Product {
    return this.products.create(fields);
  }

  /**
   * Every variant of the products with its current unit price and its
   * store's currency: one query for a whole page (or a single product).
   */
  async variantSummaries(
    productIds: number[],
  ): Promise<(VariantPriceSummary & { currency: string })[]> {
    if (productIds.length === 0) return [];
    const product = matchIds('v.product_id', productIds, 1);
    const rows: {
      id: number;
      product_id: number;
      uuid: string;
      status: VariantPriceSummary['status'];
      sort: number;
      price_id: number | null;
      unit_price: number | null;
      tiers: PriceTier[] | null;
      currency: string;
    }[] = await poolQuery(
      this.products.manager.connection,
      `SELECT v.id, v.product_id, v.uuid, v.status, v.sort,
              p.id AS price_id, p.unit_price, p.tiers, s.currency
         FROM variants v
         JOIN stores s ON s.id = v.store_id
         LEFT JOIN prices p ON p.id = v.current_price_id
        WHERE ${product.sql}
        ORDER BY v.product_id, v.sort, v.id`,
      [product.value],
      `products.variant-summaries-${product.shape}`,
    );
    return rows.map((row) => ({
      id: row.id,
      productId: row.product_id,
      uuid: row.uuid,
      status: row.status,
      sort: row.sort,
      currency: row.currency,
      unitPrice:
        row.price_id === null
          ? null
          : headlineUnitPrice({ unitPrice: row.unit_price, tiers: row.tiers }),
    }));
  }
}
