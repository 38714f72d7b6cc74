import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { scoped, scopedListPage } from '../../database/tenancy';
import { OrderItem } from './order-item.entity';

const ITEM_SORTS: Record<string, string> = {
  id: 'item.id',
  created_at: 'item.created_at',
};

/** The API's reads of `order-items`, in the caller's stores and mode. */
@Injectable()
export class OrderItemRepository {
  constructor(
    @InjectRepository(OrderItem) private readonly items: Repository<OrderItem>,
  ) {}

  private visibleItems(principal: Principal) {
    return scoped(this.items.createQueryBuilder('item'), 'item', principal);
  }

  findVisible(principal: Principal, ids: number[]): Promise<OrderItem[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visibleItems(principal)
      .andWhere('item.id IN (:...ids)', { ids })
      .getMany();
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<OrderItem>> {
    const builder = this.items.createQueryBuilder('item');
    for (const filter of ['order_id', 'product_id', 'variant_id'] as const) {
      if (query.filters[filter] !== undefined) {
        builder.andWhere(`item.${filter} = :${filter}`, {
          [filter]: query.filters[filter],
        });
      }
    }
    return scopedListPage(builder, 'item', ITEM_SORTS, query, principal);
  }

  findBy(
    principal: Principal,
    filter: 'order_id' | 'product_id' | 'variant_id',
    values: FilterValue[],
  ): Promise<OrderItem[]> {
    return this.visibleItems(principal)
      .andWhere(`item.${filter} IN (:...values)`, { values })
      .orderBy('item.id', 'ASC')
      .getMany();
  }
}
