import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Transactions } from '../../database/transactions';
import { StoreService } from '../store/store.service';
import { ProductAttributes, ProductUpdateAttributes } from './catalog.dto';
import { slugify } from './catalog-format';
import { CatalogScope, isUniqueViolation } from './catalog-scope';
import { Product } from './product.entity';
import {
  ProductPricing,
  productPricing,
  VariantPriceSummary,
} from './product-pricing';
import { ProductRepository } from './product.repository';
import { VariantRepository } from './variant.repository';
import { CatalogErrors } from './catalog.errors';

/** A product with what its computed attributes need: the store's currency and its variants' prices. */
export type ProductView = Product & {
  currency: string;
  pricing: ProductPricing;
};

const SLUG_INDEX = 'products_store_slug_key';
const SLUG_ATTEMPTS = 3;

@Injectable()
export class ProductService {
  constructor(
    private readonly products: ProductRepository,
    private readonly variants: VariantRepository,
    private readonly stores: StoreService,
    private readonly transactions: Transactions,
  ) {}

  /** POST /v1/products: the product and its default variant (status `pending`), together. */
  async create(
    scope: CatalogScope & { userId: number },
    storeId: number | null,
    attributes: ProductAttributes,
  ): Promise<ProductView> {
    const store =
      storeId === null
        ? null
        : await this.stores.findOwned(scope.userId, storeId);
    if (!store) throw CatalogErrors.storeNotFound();
    const name = attributes.name.trim();
    if (!name) throw CatalogErrors.attributeRequired('name');
    for (let attempt = 1; ; attempt++) {
      try {
        const product = await this.transactions.run(async (manager) => {
          const fields = this.products.create({
            storeId: store.id,
            testMode: scope.testMode,
            name,
            slug: attributes.slug ?? '',
            description: attributes.description ?? '',
            status: attributes.status ?? 'draft',
            payWhatYouWant: attributes.pay_what_you_want ?? false,
            thumbUrl: attributes.thumb_url ?? null,
            largeThumbUrl: attributes.large_thumb_url ?? null,
          });
          fields.slug = await this.slugFor(manager, fields, attributes.slug);
          const saved = await this.products.save(manager, fields);
          const uuid = randomUUID();
          await this.variants.save(
            manager,
            this.variants.create({
              uuid,
              storeId: saved.storeId,
              productId: saved.id,
              testMode: saved.testMode,
              name: 'Default',
              slug: uuid,
              description: '',
              links: [],
              sort: 0,
              status: 'pending',
            }),
          );
          return saved;
        });
        return (await this.views([product]))[0];
      } catch (error) {
        // Two requests raced for the same generated slug: pick again.
        if (
          isUniqueViolation(error, SLUG_INDEX) &&
          attributes.slug === undefined &&
          attempt < SLUG_ATTEMPTS
        )
          continue;
        if (isUniqueViolation(error, SLUG_INDEX))
          throw CatalogErrors.slugTaken();
        throw error;
      }
    }
  }

  async update(
    scope: CatalogScope,
    id: number,
    changes: ProductUpdateAttributes,
  ): Promise<ProductView> {
    for (const name of ['name', 'status', 'slug', 'description'] as const) {
      if (changes[name] === null)
        throw CatalogErrors.attributeNotNullable(name);
    }
    if (changes.name !== undefined && !changes.name.trim())
      throw CatalogErrors.attributeRequired(
        'name',
        'The name cannot be empty.',
      );
    try {
      const product = await this.transactions.run(async (manager) => {
        const product = await this.products.lockInScope(manager, scope, id);
        if (!product) throw AppError.notFound();
        if (changes.name !== undefined) product.name = changes.name.trim();
        if (changes.description !== undefined)
          product.description = changes.description;
        if (changes.status !== undefined) product.status = changes.status;
        if (changes.pay_what_you_want !== undefined)
          product.payWhatYouWant = changes.pay_what_you_want;
        if (changes.thumb_url !== undefined)
          product.thumbUrl = changes.thumb_url;
        if (changes.large_thumb_url !== undefined)
          product.largeThumbUrl = changes.large_thumb_url;
        if (changes.slug !== undefined && changes.slug !== product.slug) {
          product.slug = changes.slug;
          if (await this.products.slugTaken(manager, product, product.id))
            throw CatalogErrors.slugTaken();
        }
        return this.products.save(manager, product);
      });
      return (await this.views([product]))[0];
    } catch (error) {
      if (isUniqueViolation(error, SLUG_INDEX)) throw CatalogErrors.slugTaken();
      throw error;
    }
  }

  async findOne(scope: CatalogScope, id: number): Promise<ProductView | null> {
    return (await this.findMany(scope, [id]))[0] ?? null;
  }

  async findMany(scope: CatalogScope, ids: number[]): Promise<ProductView[]> {
    return this.views(await this.products.findInScope(scope, ids));
  }

  async findPage(
    scope: CatalogScope,
    query: ListQuery,
  ): Promise<Page<ProductView>> {
    const page = await this.products.findPage(scope, query);
    return { records: await this.views(page.records), total: page.total };
  }

  async findByStores(
    scope: CatalogScope,
    storeIds: FilterValue[],
  ): Promise<ProductView[]> {
    return this.views(
      await this.products.findByStores(scope, storeIds.map(Number)),
    );
  }

  /** A product by its slug in one store (the demo seed finds what it made before). */
  async findBySlug(
    scope: CatalogScope,
    storeId: number,
    slug: string,
  ): Promise<ProductView | null> {
    const product = await this.products.findBySlug(scope, storeId, slug);
    return product ? (await this.views([product]))[0] : null;
  }

  private async views(products: Product[]): Promise<ProductView[]> {
    if (products.length === 0) return [];
    const summaries = await this.products.variantSummaries(
      products.map((p) => p.id),
    );
    const byProduct = new Map<number, VariantPriceSummary[]>();
    const currencies = new Map<number, string>();
    for (const summary of summaries) {
      const list = byProduct.get(summary.productId);
      if (list) list.push(summary);
      else byProduct.set(summary.productId, [summary]);
      currencies.set(summary.productId, summary.currency);
    }
    // Every product has a variant (its default); this covers any that lost it.
    const orphans = products.filter((p) => !currencies.has(p.id));
    const storeCurrencies =
      orphans.length > 0
        ? await this.stores.currencies(orphans.map((p) => p.storeId))
        : new Map<number, string>();
    // Extended in place: spreading a class instance copies it slowly.
    return products.map((product) =>
      Object.assign(product, {
        currency:
          currencies.get(product.id) ??
          storeCurrencies.get(product.storeId) ??
          'USD',
        pricing: productPricing(byProduct.get(product.id) ?? []),
      }),
    );
  }

  private async slugFor(
    manager: EntityManager,
    product: Product,
    requested: string | undefined,
  ): Promise<string> {
    if (requested !== undefined) {
      if (await this.products.slugTaken(manager, product))
        throw CatalogErrors.slugTaken();
      return requested;
    }
    const base = slugify(product.name, 'product');
    for (let n = 1; ; n++) {
      product.slug = n === 1 ? base : `${base}-${n}`;
      if (!(await this.products.slugTaken(manager, product)))
        return product.slug;
    }
  }
}
