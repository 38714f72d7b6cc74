import { Injectable } from '@nestjs/common';
import { CatalogScope } from './catalog-scope';
import { Price } from './price.entity';
import { PriceRepository } from './price.repository';
import { Product } from './product.entity';
import { selectableVariants } from './product-pricing';
import { ProductRepository } from './product.repository';
import { Variant } from './variant.entity';
import { VariantRepository } from './variant.repository';

/** What a purchase of one variant needs to know. */
export interface PurchasableVariant {
  variant: Variant;
  product: Product;
  /** The variant's current (newest) price. */
  price: Price;
  /** Every variant a buyer may choose from on this product's checkout, in display order. */
  choices: Variant[];
  /** The current price of each choice, by variant id. */
  prices: Map<number, Price>;
}

/**
 * The catalog as the purchase flow (checkout, orders, subscriptions) sees it.
 * Other modules call this, never the catalog repositories.
 */
@Injectable()
export class CatalogService {
  constructor(
    private readonly products: ProductRepository,
    private readonly variants: VariantRepository,
    private readonly prices: PriceRepository,
  ) {}

  /**
   * The variant with its product and current price when it can be bought in
   * the scope: visible there, its product published, the variant one of the
   * product's choices (published, or the pending default of a single-variant
   * product) and priced. Null otherwise.
   */
  async findPurchasableVariant(
    scope: CatalogScope,
    variantId: number,
  ): Promise<PurchasableVariant | null> {
    const [variant] = await this.variants.findInScope(scope, [variantId]);
    return variant ? this.purchasable(variant) : null;
  }

  /** The same for the variant behind a `buy_now_url` (`/checkout/buy/{uuid}`), in its own mode. */
  async findPurchasableVariantByUuid(
    uuid: string,
  ): Promise<PurchasableVariant | null> {
    const variant = await this.variants.findByUuid(uuid);
    return variant ? this.purchasable(variant) : null;
  }

  /** A variant visible in the scope, purchasable or not (e.g. checkout creation checks). */
  async findVariant(
    scope: CatalogScope,
    variantId: number,
  ): Promise<Variant | null> {
    return (await this.variants.findInScope(scope, [variantId]))[0] ?? null;
  }

  /** A product visible in the scope, published or not (a purchase's settlement). */
  async findProduct(
    scope: CatalogScope,
    productId: number,
  ): Promise<Product | null> {
    return (await this.products.findInScope(scope, [productId]))[0] ?? null;
  }

  /** A price visible in the scope (e.g. subscription items point at prices). */
  async findPrice(scope: CatalogScope, priceId: number): Promise<Price | null> {
    return (await this.prices.findInScope(scope, [priceId]))[0] ?? null;
  }

  private async purchasable(
    variant: Variant,
  ): Promise<PurchasableVariant | null> {
    const scope = { testMode: variant.testMode, storeId: variant.storeId };
    const [[product], siblings, current] = await Promise.all([
      this.products.findInScope(scope, [variant.productId]),
      this.variants.findSiblings(variant),
      this.prices.findCurrentOfProduct(variant.productId),
    ]);
    if (!product || product.status !== 'published') return null;
    const priced = new Map(current.map((price) => [price.variantId, price]));
    const choices = selectableVariants(siblings).filter((v) =>
      priced.has(v.id),
    );
    const price = priced.get(variant.id);
    if (!price || !choices.some((v) => v.id === variant.id)) return null;
    const prices = new Map(choices.map((v) => [v.id, priced.get(v.id)!]));
    return { variant, product, price, choices, prices };
  }
}
