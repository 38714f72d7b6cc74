import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { ownsStore, scoped, scopedListPage } from '../../database/tenancy';
import { DiscountRedemption } from './discount-redemption.entity';
import { Discount, DiscountView } from './discount.entity';

const DISCOUNT_SORTS: Record<string, string> = {
  created_at: 'discount.created_at',
  updated_at: 'discount.updated_at',
  name: 'discount.name',
  code: 'discount.code',
};

const REDEMPTION_SORTS: Record<string, string> = {
  created_at: 'redemption.created_at',
  updated_at: 'redemption.updated_at',
};

/** Every query for discounts, their variant links and their redemptions. */
@Injectable()
export class DiscountRepository {
  constructor(
    @InjectRepository(Discount)
    private readonly discounts: Repository<Discount>,
    @InjectRepository(DiscountRedemption)
    private readonly redemptions: Repository<DiscountRedemption>,
  ) {}

  get manager(): EntityManager {
    return this.discounts.manager;
  }

  private visible(principal: Principal) {
    return scoped(
      this.discounts.createQueryBuilder('discount'),
      'discount',
      principal,
    ).andWhere('discount.deleted_at IS NULL');
  }

  async findVisible(
    principal: Principal,
    ids: number[],
  ): Promise<DiscountView[]> {
    if (ids.length === 0) return [];
    const records = await this.visible(principal)
      .andWhere('discount.id IN (:...ids)', { ids })
      .getMany();
    return this.withVariants(records);
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<DiscountView>> {
    const builder = this.discounts
      .createQueryBuilder('discount')
      .where('discount.deleted_at IS NULL');
    if (query.filters.store_id !== undefined) {
      builder.andWhere('discount.store_id = :storeId', {
        storeId: query.filters.store_id,
      });
    }
    const page = await scopedListPage(
      builder,
      'discount',
      DISCOUNT_SORTS,
      query,
      principal,
    );
    return {
      records: await this.withVariants(page.records),
      total: page.total,
    };
  }

  async findByStores(
    principal: Principal,
    storeIds: FilterValue[],
  ): Promise<DiscountView[]> {
    const records = await this.visible(principal)
      .andWhere('discount.store_id IN (:...storeIds)', { storeIds })
      .orderBy('discount.created_at', 'ASC')
      .addOrderBy('discount.id', 'ASC')
      .getMany();
    return this.withVariants(records);
  }

  storeOwned(principal: Principal, storeId: number): Promise<boolean> {
    return ownsStore(this.discounts.manager, principal, storeId);
  }

  codeTaken(
    manager: EntityManager,
    storeId: number,
    testMode: boolean,
    code: string,
  ): Promise<boolean> {
    return scoped(
      manager.getRepository(Discount).createQueryBuilder('discount'),
      'discount',
      { storeId, testMode },
    )
      .andWhere('discount.code = :code', { code })
      .andWhere('discount.deleted_at IS NULL')
      .getExists();
  }

  async insert(
    manager: EntityManager,
    fields: Partial<Discount>,
    variantIds: number[],
  ): Promise<DiscountView> {
    const discount = await manager
      .getRepository(Discount)
      .save(manager.getRepository(Discount).create(fields));
    if (variantIds.length > 0) {
      await manager
        .createQueryBuilder()
        .insert()
        .into('discount_variants', ['discount_id', 'variant_id'])
        .values(
          variantIds.map((variantId) => ({
            discount_id: discount.id,
            variant_id: variantId,
          })),
        )
        .execute();
    }
    return Object.assign(discount, { variantIds });
  }

  async softDelete(id: number, now: Date): Promise<void> {
    await this.discounts.update({ id }, { deletedAt: now });
  }

  /**
   * The live discount with this code, optionally locked FOR UPDATE so that
   * the redemption limit holds when purchases race for the last uses.
   */
  async findByCode(
    manager: EntityManager,
    storeId: number,
    testMode: boolean,
    code: string,
    lock: boolean,
  ): Promise<DiscountView | null> {
    const builder = scoped(
      manager.getRepository(Discount).createQueryBuilder('discount'),
      'discount',
      { storeId, testMode },
    )
      .andWhere('discount.code = :code', { code })
      .andWhere('discount.deleted_at IS NULL');
    if (lock) builder.setLock('pessimistic_write');
    const discount = await builder.getOne();
    if (!discount) return null;
    const [view] = await this.withVariants([discount], manager);
    return view;
  }

  async recordRedemption(
    manager: EntityManager,
    discount: Discount,
    fields: Partial<DiscountRedemption>,
  ): Promise<DiscountRedemption> {
    await manager
      .getRepository(Discount)
      .increment({ id: discount.id }, 'redemptionsCount', 1);
    const repository = manager.getRepository(DiscountRedemption);
    return repository.save(repository.create(fields));
  }

  /** The discount an order redeemed, with the amount it took off. */
  async redeemedBy(
    manager: EntityManager,
    orderId: number,
  ): Promise<{ discount: DiscountView; amount: number } | null> {
    const redemption = await manager
      .getRepository(DiscountRedemption)
      .findOneBy({ orderId });
    if (!redemption) return null;
    const discount = await manager
      .getRepository(Discount)
      .findOneByOrFail({ id: redemption.discountId });
    const [view] = await this.withVariants([discount], manager);
    return { discount: view, amount: redemption.amount };
  }

  /** Deletes an order's redemptions and gives their uses back to the discounts. */
  async deleteRedemptions(
    manager: EntityManager,
    orderId: number,
  ): Promise<void> {
    const repository = manager.getRepository(DiscountRedemption);
    const redemptions = await repository.findBy({ orderId });
    for (const redemption of redemptions) {
      await repository.delete({ id: redemption.id });
      await manager
        .getRepository(Discount)
        .decrement({ id: redemption.discountId }, 'redemptionsCount', 1);
    }
  }

  private visibleRedemptions(principal: Principal) {
    return scoped(
      this.redemptions.createQueryBuilder('redemption'),
      'redemption',
      principal,
    );
  }

  findRedemptions(
    principal: Principal,
    ids: number[],
  ): Promise<DiscountRedemption[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visibleRedemptions(principal)
      .andWhere('redemption.id IN (:...ids)', { ids })
      .getMany();
  }

  findRedemptionPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<DiscountRedemption>> {
    const builder = this.redemptions.createQueryBuilder('redemption');
    for (const filter of ['discount_id', 'order_id'] as const) {
      if (query.filters[filter] !== undefined) {
        builder.andWhere(`redemption.${filter} = :${filter}`, {
          [filter]: query.filters[filter],
        });
      }
    }
    return scopedListPage(
      builder,
      'redemption',
      REDEMPTION_SORTS,
      query,
      principal,
    );
  }

  findRedemptionsBy(
    principal: Principal,
    filter: 'discount_id' | 'order_id',
    values: FilterValue[],
  ): Promise<DiscountRedemption[]> {
    return this.visibleRedemptions(principal)
      .andWhere(`redemption.${filter} IN (:...values)`, { values })
      .orderBy('redemption.created_at', 'DESC')
      .addOrderBy('redemption.id', 'DESC')
      .getMany();
  }

  private async withVariants(
    discounts: Discount[],
    manager: EntityManager = this.discounts.manager,
  ): Promise<DiscountView[]> {
    const limited = discounts.filter((d) => d.isLimitedToProducts);
    const links: { discount_id: number; variant_id: number }[] =
      limited.length === 0
        ? []
        : await manager
            .createQueryBuilder()
            .select([
              'link.discount_id AS discount_id',
              'link.variant_id AS variant_id',
            ])
            .from('discount_variants', 'link')
            .where('link.discount_id IN (:...ids)', {
              ids: limited.map((d) => d.id),
            })
            .orderBy('link.variant_id', 'ASC')
            .getRawMany();
    return discounts.map((discount) =>
      Object.assign(discount, {
        variantIds: links
          .filter((link) => link.discount_id === discount.id)
          .map((link) => link.variant_id),
      }),
    );
  }
}
