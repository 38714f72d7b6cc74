import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Reader } from '../../common/reader';
import { CatalogScope } from './catalog-scope';
import { Price } from './price.entity';
import { PriceRepository } from './price.repository';

/** How `prices` are found (registered in CatalogModule). */
@Injectable()
export class PriceReader implements Reader<Price> {
  constructor(private readonly prices: PriceRepository) {}

  findMany(scope: CatalogScope, ids: number[]): Promise<Price[]> {
    return this.prices.findInScope(scope, ids);
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<Price>> {
    return this.prices.findPage(scope, query);
  }

  findByFilter(
    scope: CatalogScope,
    filter: string,
    values: FilterValue[],
  ): Promise<Price[]> {
    if (filter !== 'variant_id')
      throw new Error(`prices cannot be listed by ${filter}`);
    return this.prices.findByVariants(scope, values);
  }
}
