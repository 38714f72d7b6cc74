import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Transactions } from '../../database/transactions';
import { CatalogScope } from './catalog-scope';
import { Price } from './price.entity';
import { normalizePrice, PriceInput } from './price-rules';
import { PriceRepository } from './price.repository';
import { VariantRepository } from './variant.repository';
import { CatalogErrors } from './catalog.errors';

@Injectable()
export class PriceService {
  constructor(
    private readonly prices: PriceRepository,
    private readonly variants: VariantRepository,
    private readonly transactions: Transactions,
  ) {}

  /**
   * POST /v1/prices. Prices never change; a new one becomes the variant's
   * current price. The variant's row lock orders concurrent posts, so the
   * newest committed price is always the current one.
   */
  async create(
    scope: CatalogScope,
    variantId: number | null,
    input: PriceInput,
  ): Promise<Price> {
    const fields = normalizePrice(input);
    return this.transactions.run(async (manager) => {
      const variant =
        variantId === null
          ? null
          : await this.variants.lockInScope(manager, scope, variantId);
      if (!variant) throw CatalogErrors.variantNotFound();
      const price = await this.prices.insert(manager, {
        ...fields,
        storeId: variant.storeId,
        variantId: variant.id,
        testMode: variant.testMode,
      });
      variant.currentPriceId = price.id;
      await this.variants.save(manager, variant);
      return price;
    });
  }

  async findOne(scope: CatalogScope, id: number): Promise<Price | null> {
    return (await this.prices.findInScope(scope, [id]))[0] ?? null;
  }

  findMany(scope: CatalogScope, ids: number[]): Promise<Price[]> {
    return this.prices.findInScope(scope, ids);
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<Price>> {
    return this.prices.findPage(scope, query);
  }

  findByVariants(scope: CatalogScope, ids: FilterValue[]): Promise<Price[]> {
    return this.prices.findByVariants(scope, ids);
  }
}
