import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Principal } from '../../http/auth/principal';
import { FilterValue, ListQuery } from '../../http/json-api/list-query';
import { Page } from '../../http/json-api/resource';
import { Price } from '../catalog/price.entity';
import { Product } from '../catalog/product.entity';
import { Variant } from '../catalog/variant.entity';
import { Store } from '../store/store.entity';
import { Checkout } from './checkout.entity';

const OWNED_STORES = 'SELECT s.id FROM stores s WHERE s.user_id = :userId';

const SORTS: Record<string, string> = {
  created_at: 'checkout.created_at',
  updated_at: 'checkout.updated_at',
};

/** A variant with everything a checkout shows and a purchase needs. */
export interface PurchaseTarget {
  store: Store;
  product: Product;
  variant: Variant;
  /** The variant's current price; null until one is set. */
  price: Price | null;
  /** All variants of the product, in display order. */
  siblings: Variant[];
  /** Current prices of the siblings, by variant id. */
  prices: Map<number, Price>;
}

/** Every query for checkouts, and the catalog reads a checkout needs. */
@Injectable()
export class CheckoutRepository {
  constructor(
    @InjectRepository(Checkout)
    private readonly checkouts: Repository<Checkout>,
    @InjectRepository(Variant) private readonly variants: Repository<Variant>,
    @InjectRepository(Product) private readonly products: Repository<Product>,
    @InjectRepository(Price) private readonly prices: Repository<Price>,
    @InjectRepository(Store) private readonly stores: Repository<Store>,
  ) {}

  save(checkout: Checkout): Promise<Checkout> {
    return this.checkouts.save(checkout);
  }

  create(fields: Partial<Checkout>): Checkout {
    return this.checkouts.create(fields);
  }

  findById(id: string): Promise<Checkout | null> {
    return this.checkouts.findOneBy({ id });
  }

  private visible(principal: Principal) {
    return this.checkouts
      .createQueryBuilder('checkout')
      .where(`checkout.store_id IN (${OWNED_STORES})`, {
        userId: principal.userId,
      })
      .andWhere('checkout.test_mode = :testMode', {
        testMode: principal.testMode,
      });
  }

  findVisible(principal: Principal, ids: string[]): Promise<Checkout[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visible(principal)
      .andWhere('checkout.id IN (:...ids)', { ids })
      .getMany();
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<Checkout>> {
    const builder = this.visible(principal);
    for (const filter of ['store_id', 'variant_id'] as const) {
      if (query.filters[filter] !== undefined) {
        builder.andWhere(`checkout.${filter} = :${filter}`, {
          [filter]: query.filters[filter],
        });
      }
    }
    for (const key of query.sort) {
      builder.addOrderBy(SORTS[key.field], key.descending ? 'DESC' : 'ASC');
    }
    const last = query.sort[query.sort.length - 1];
    const [records, total] = await builder
      .addOrderBy('checkout.id', last?.descending ? 'DESC' : 'ASC')
      .offset((query.page.number - 1) * query.page.size)
      .limit(query.page.size)
      .getManyAndCount();
    return { records, total };
  }

  findBy(
    principal: Principal,
    filter: 'store_id' | 'variant_id',
    values: FilterValue[],
  ): Promise<Checkout[]> {
    return this.visible(principal)
      .andWhere(`checkout.${filter} IN (:...values)`, { values })
      .orderBy('checkout.created_at', 'DESC')
      .addOrderBy('checkout.id', 'DESC')
      .getMany();
  }

  async storeName(storeId: number): Promise<string | null> {
    const store = await this.stores.findOneBy({ id: storeId });
    return store?.name ?? null;
  }

  storeOwned(principal: Principal, storeId: number): Promise<boolean> {
    return this.stores.existsBy({ id: storeId, userId: principal.userId });
  }

  /** A variant the caller may sell: in one of its stores and in its mode. */
  async visibleVariant(
    principal: Principal,
    id: number,
  ): Promise<Variant | null> {
    return this.variants
      .createQueryBuilder('variant')
      .where('variant.id = :id', { id })
      .andWhere(`variant.store_id IN (${OWNED_STORES})`, {
        userId: principal.userId,
      })
      .andWhere('variant.test_mode = :testMode', {
        testMode: principal.testMode,
      })
      .getOne();
  }

  variantByUuid(uuid: string): Promise<Variant | null> {
    return this.variants.findOneBy({ uuid });
  }

  variantById(id: number): Promise<Variant | null> {
    return this.variants.findOneBy({ id });
  }

  /** The variant's store, product, sibling variants and current prices. */
  async target(variant: Variant): Promise<PurchaseTarget | null> {
    const [store, product, siblings] = await Promise.all([
      this.stores.findOneBy({ id: variant.storeId }),
      this.products.findOneBy({ id: variant.productId }),
      this.variants.find({
        where: { productId: variant.productId },
        order: { sort: 'ASC', id: 'ASC' },
      }),
    ]);
    if (!store || !product) return null;
    const priceIds = siblings
      .map((v) => v.currentPriceId)
      .filter((id) => id !== null);
    const prices =
      priceIds.length === 0
        ? []
        : await this.prices
            .createQueryBuilder('price')
            .where('price.id IN (:...priceIds)', { priceIds })
            .getMany();
    const byVariant = new Map(prices.map((p) => [p.variantId, p]));
    return {
      store,
      product,
      variant,
      price: byVariant.get(variant.id) ?? null,
      siblings,
      prices: byVariant,
    };
  }
}
