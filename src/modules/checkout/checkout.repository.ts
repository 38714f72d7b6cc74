import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { EntityRows } from '../../database/entity-rows';
import { ownsStore, scoped, scopedListPage } from '../../database/tenancy';
import { CatalogService, PurchasableVariant } from '../catalog/catalog.service';
import { Variant } from '../catalog/variant.entity';
import { Store } from '../store/store.entity';
import { Checkout } from './checkout.entity';

const SORTS: Record<string, string> = {
  created_at: 'checkout.created_at',
  updated_at: 'checkout.updated_at',
};

/** A purchasable variant with everything a checkout shows and a purchase needs. */
export interface PurchaseTarget extends PurchasableVariant {
  store: Store;
}

/** Every query for checkouts, and the catalog reads a checkout needs. */
@Injectable()
export class CheckoutRepository {
  private readonly storeRows: EntityRows<Store>;

  constructor(
    @InjectRepository(Checkout)
    private readonly checkouts: Repository<Checkout>,
    @InjectRepository(Store) private readonly stores: Repository<Store>,
    private readonly catalog: CatalogService,
  ) {
    this.storeRows = new EntityRows(stores, 'store');
  }

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
    return scoped(
      this.checkouts.createQueryBuilder('checkout'),
      'checkout',
      principal,
    );
  }

  findVisible(principal: Principal, ids: string[]): Promise<Checkout[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visible(principal)
      .andWhere('checkout.id IN (:...ids)', { ids })
      .getMany();
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<Checkout>> {
    const builder = this.checkouts.createQueryBuilder('checkout');
    for (const filter of ['store_id', 'variant_id'] as const) {
      if (query.filters[filter] !== undefined) {
        builder.andWhere(`checkout.${filter} = :${filter}`, {
          [filter]: query.filters[filter],
        });
      }
    }
    return scopedListPage(builder, 'checkout', SORTS, query, principal);
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

  async store(id: number): Promise<Store | null> {
    const [store] = await this.storeRows.query(
      `SELECT ${this.storeRows.select} FROM stores store WHERE store.id = $1`,
      [id],
      'stores.by-id',
    );
    return store ?? null;
  }

  storeOwned(principal: Principal, storeId: number): Promise<boolean> {
    return ownsStore(this.stores.manager, principal, storeId);
  }

  /** A variant of the caller's stores in its mode, purchasable or not. */
  visibleVariant(principal: Principal, id: number): Promise<Variant | null> {
    return this.catalog.findVariant(
      { testMode: principal.testMode, userId: principal.userId },
      id,
    );
  }

  /** The purchasable variant of a checkout, in the checkout's store and mode. */
  async targetOf(
    storeId: number,
    testMode: boolean,
    variantId: number,
  ): Promise<PurchaseTarget | null> {
    return this.target(
      await this.catalog.findPurchasableVariant(
        { testMode, storeId },
        variantId,
      ),
    );
  }

  /** The purchasable variant behind a buy_now_url. */
  async targetByUuid(uuid: string): Promise<PurchaseTarget | null> {
    return this.target(await this.catalog.findPurchasableVariantByUuid(uuid));
  }

  private async target(
    purchasable: PurchasableVariant | null,
  ): Promise<PurchaseTarget | null> {
    if (!purchasable) return null;
    const store = await this.store(purchasable.variant.storeId);
    return store ? { ...purchasable, store } : null;
  }
}
