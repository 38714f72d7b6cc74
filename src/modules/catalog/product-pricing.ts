import { VariantStatus } from './variant.entity';

/** What a product's computed price fields need to know about one of its variants. */
export interface VariantPriceSummary {
  productId: number;
  uuid: string;
  status: VariantStatus;
  sort: number;
  id: number;
  /** The current price's unit price in cents; null without a price. */
  unitPrice: number | null;
}

export interface ProductPricing {
  price: number;
  fromPrice: number | null;
  toPrice: number | null;
  /** The variant `buy_now_url` points at; null for a product without variants. */
  buyNowVariantUuid: string | null;
}

/**
 * The variants a buyer chooses from: the product's only variant (its pending
 * default), or, once it has several, those that are published (the pending
 * default is then hidden, per the spec's default-variant rule).
 */
export function selectableVariants<
  V extends { status: VariantStatus; sort: number; id: number },
>(variants: V[]): V[] {
  const ordered = [...variants].sort((a, b) => a.sort - b.sort || a.id - b.id);
  if (ordered.length === 1) return ordered[0].status === 'draft' ? [] : ordered;
  return ordered.filter((v) => v.status === 'published');
}

/**
 * `price` is the first selectable variant's price; `from_price`/`to_price`
 * are the cheapest and dearest selectable prices, set only when the product
 * has several variants (spec 2.3).
 */
export function productPricing(
  variants: VariantPriceSummary[],
): ProductPricing {
  const selectable = selectableVariants(variants);
  const first =
    selectable[0] ??
    [...variants].sort((a, b) => a.sort - b.sort || a.id - b.id)[0];
  const prices = selectable
    .map((v) => v.unitPrice)
    .filter((p): p is number => p !== null);
  const several = variants.length > 1 && prices.length > 0;
  return {
    price: first?.unitPrice ?? 0,
    fromPrice: several ? Math.min(...prices) : null,
    toPrice: several ? Math.max(...prices) : null,
    buyNowVariantUuid: first?.uuid ?? null,
  };
}
