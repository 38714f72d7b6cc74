import {
  DEFAULT_MAX_QUANTITY,
  DEFAULT_MIN_QUANTITY,
  QuantityLimits,
  quantityLimitsOf,
} from '../catalog/quantity-limits';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Price } from '../catalog/price.entity';
import { Product } from '../catalog/product.entity';
import { Variant } from '../catalog/variant.entity';
import { scoped } from '../../database/tenancy';
import { applyFilters, newestFirst, pageOf } from './billing-list';
import { SubscriptionItem } from './subscription-item.entity';
import { Subscription } from './subscription.entity';

/** Every query for subscriptions and their items. */
@Injectable()
export class SubscriptionRepository {
  constructor(
    @InjectRepository(Subscription)
    private readonly subscriptions: Repository<Subscription>,
    @InjectRepository(SubscriptionItem)
    private readonly items: Repository<SubscriptionItem>,
  ) {}

  findVisible(principal: Principal, ids: number[]): Promise<Subscription[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(
      this.subscriptions.createQueryBuilder('subscription'),
      'subscription',
      principal,
    )
      .andWhere('subscription.id IN (:...ids)', { ids })
      .getMany();
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<Subscription>> {
    const builder = this.subscriptions.createQueryBuilder('subscription');
    applyFilters(builder, 'subscription', query.filters, {});
    return pageOf(builder, 'subscription', query, principal);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<Subscription[]> {
    const builder = scoped(
      this.subscriptions.createQueryBuilder('subscription'),
      'subscription',
      principal,
    );
    applyFilters(builder, 'subscription', { [filter]: values }, {});
    return newestFirst(builder, 'subscription');
  }

  /** The row under FOR UPDATE, scoped to the caller; null when not visible. */
  async lockVisible(
    manager: EntityManager,
    principal: Principal,
    id: number,
  ): Promise<Subscription | null> {
    return scoped(
      manager.createQueryBuilder(Subscription, 'subscription'),
      'subscription',
      principal,
    )
      .andWhere('subscription.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  /** By id alone, outside a transaction (the portal's signed link). */
  findById(id: number): Promise<Subscription | null> {
    return this.subscriptions.findOneBy({ id });
  }

  /** The name of a subscription's store, for its portal page. */
  async storeName(storeId: number): Promise<string | null> {
    const rows: { name: string }[] = await this.subscriptions.query(
      'SELECT name FROM stores WHERE id = $1',
      [storeId],
    );
    return rows[0]?.name ?? null;
  }

  lock(manager: EntityManager, id: number): Promise<Subscription | null> {
    return manager
      .createQueryBuilder(Subscription, 'subscription')
      .where('subscription.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  /**
   * The next due subscription not being handled by another sweep right now
   * (FOR UPDATE SKIP LOCKED), locked for the caller's transaction.
   */
  async lockNextDue(
    manager: EntityManager,
    asOf: Date,
    skip: number[],
  ): Promise<Subscription | null> {
    const rows: { id: number }[] = await manager.query(
      `SELECT id FROM subscriptions
        WHERE next_action_at <= $1 AND NOT (id = ANY($2::int[]))
        ORDER BY next_action_at, id
        LIMIT 1
        FOR UPDATE SKIP LOCKED`,
      [asOf, skip],
    );
    if (rows.length === 0) return null;
    return manager.findOneBy(Subscription, { id: rows[0].id });
  }

  save(
    manager: EntityManager,
    subscription: Subscription,
  ): Promise<Subscription> {
    return manager.save(Subscription, subscription);
  }

  insert(
    manager: EntityManager,
    fields: Partial<Subscription>,
  ): Promise<Subscription> {
    return manager.save(Subscription, manager.create(Subscription, fields));
  }

  /** The first item of each subscription (a subscription has one today; the oldest is first). */
  async firstItems(
    manager: EntityManager | null,
    subscriptionIds: number[],
  ): Promise<Map<number, SubscriptionItem>> {
    const result = new Map<number, SubscriptionItem>();
    if (subscriptionIds.length === 0) return result;
    const items = await (manager?.getRepository(SubscriptionItem) ?? this.items)
      .createQueryBuilder('item')
      .distinctOn(['item.subscription_id'])
      .where('item.subscription_id IN (:...ids)', { ids: subscriptionIds })
      .orderBy('item.subscription_id')
      .addOrderBy('item.id', 'ASC')
      .getMany();
    for (const item of items) result.set(item.subscriptionId, item);
    return result;
  }

  /** Subscriptions of these customers with their first item and its price, newest first. */
  async withFirstItemsOf(customerIds: number[]): Promise<
    {
      subscription: Subscription;
      item: SubscriptionItem | null;
      price: Price | null;
    }[]
  > {
    if (customerIds.length === 0) return [];
    const subscriptions = await this.subscriptions
      .createQueryBuilder('subscription')
      .where('subscription.customer_id IN (:...customerIds)', { customerIds })
      .orderBy('subscription.created_at', 'DESC')
      .addOrderBy('subscription.id', 'DESC')
      .getMany();
    const items = await this.firstItems(
      null,
      subscriptions.map((s) => s.id),
    );
    const prices = new Map(
      (
        await this.prices(null, [
          ...new Set([...items.values()].map((i) => i.priceId)),
        ])
      ).map((p) => [p.id, p]),
    );
    return subscriptions.map((subscription) => {
      const item = items.get(subscription.id) ?? null;
      return {
        subscription,
        item,
        price: item ? (prices.get(item.priceId) ?? null) : null,
      };
    });
  }

  // Subscription items.

  /** Pass the transaction's manager inside one: the embedded database has a single connection. */
  findVisibleItems(
    principal: Principal,
    ids: number[],
    manager?: EntityManager,
  ): Promise<SubscriptionItem[]> {
    if (ids.length === 0) return Promise.resolve([]);
    const items = manager?.getRepository(SubscriptionItem) ?? this.items;
    return scoped(items.createQueryBuilder('item'), 'item', principal)
      .andWhere('item.id IN (:...ids)', { ids })
      .getMany();
  }

  findItemPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<SubscriptionItem>> {
    const builder = this.items.createQueryBuilder('item');
    applyFilters(builder, 'item', query.filters, {});
    return pageOf(builder, 'item', query, principal);
  }

  findItemsByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<SubscriptionItem[]> {
    const builder = scoped(
      this.items.createQueryBuilder('item'),
      'item',
      principal,
    );
    applyFilters(builder, 'item', { [filter]: values }, {});
    return newestFirst(builder, 'item');
  }

  itemsOf(
    manager: EntityManager,
    subscriptionId: number,
  ): Promise<SubscriptionItem[]> {
    return manager.find(SubscriptionItem, {
      where: { subscriptionId },
      order: { id: 'ASC' },
    });
  }

  findItem(
    manager: EntityManager,
    id: number,
  ): Promise<SubscriptionItem | null> {
    return manager.findOneBy(SubscriptionItem, { id });
  }

  saveItem(
    manager: EntityManager,
    item: SubscriptionItem,
  ): Promise<SubscriptionItem> {
    return manager.save(SubscriptionItem, item);
  }

  insertItem(
    manager: EntityManager,
    fields: Partial<SubscriptionItem>,
  ): Promise<SubscriptionItem> {
    return manager.save(
      SubscriptionItem,
      manager.create(SubscriptionItem, fields),
    );
  }

  // Catalog reads billing needs (prices are immutable, so reading them is safe anywhere).

  prices(manager: EntityManager | null, ids: number[]): Promise<Price[]> {
    if (ids.length === 0) return Promise.resolve([]);
    const m = manager ?? this.subscriptions.manager;
    return m.findBy(Price, { id: In(ids) });
  }

  async price(
    manager: EntityManager | null,
    id: number,
  ): Promise<Price | null> {
    const [price] = await this.prices(manager, [id]);
    return price ?? null;
  }

  /** The quantity limits a subscription's plan (its variant) sets. */
  async quantityLimits(
    manager: EntityManager | null,
    variantId: number,
  ): Promise<QuantityLimits> {
    const m = manager ?? this.subscriptions.manager;
    const variant = await m.findOneBy(Variant, { id: variantId });
    return variant
      ? quantityLimitsOf(variant)
      : { min: DEFAULT_MIN_QUANTITY, max: DEFAULT_MAX_QUANTITY };
  }

  /** A variant of the store and mode, with its product and current price. */
  async variantInStore(
    manager: EntityManager,
    storeId: number,
    testMode: boolean,
    variantId: number,
  ): Promise<{
    variant: Variant;
    product: Product;
    price: Price | null;
  } | null> {
    const variant = await scoped(
      manager.createQueryBuilder(Variant, 'variant'),
      'variant',
      { storeId, testMode },
    )
      .andWhere('variant.id = :variantId', { variantId })
      .getOne();
    if (!variant) return null;
    const product = await manager.findOneByOrFail(Product, {
      id: variant.productId,
    });
    const price = variant.currentPriceId
      ? await manager.findOneBy(Price, { id: variant.currentPriceId })
      : null;
    return { variant, product, price };
  }

  /**
   * The plans a subscriber may switch to in the portal: the product's
   * published variants (of the subscription's store and mode) whose current
   * price is a subscription price, in the product's order.
   */
  async publishedPlans(s: {
    storeId: number;
    testMode: boolean;
    productId: number;
  }): Promise<{ variant: Variant; price: Price }[]> {
    const variants = await scoped(
      this.items.manager.createQueryBuilder(Variant, 'variant'),
      'variant',
      { storeId: s.storeId, testMode: s.testMode },
    )
      .andWhere('variant.product_id = :productId', { productId: s.productId })
      .andWhere("variant.status = 'published'")
      .orderBy('variant.sort', 'ASC')
      .addOrderBy('variant.id', 'ASC')
      .getMany();
    const priceIds = variants
      .map((v) => v.currentPriceId)
      .filter((id): id is number => id !== null);
    const prices = await this.prices(null, priceIds);
    const byId = new Map(prices.map((p) => [p.id, p]));
    return variants.flatMap((variant) => {
      const price = variant.currentPriceId
        ? byId.get(variant.currentPriceId)
        : undefined;
      return price?.category === 'subscription' ? [{ variant, price }] : [];
    });
  }
}
