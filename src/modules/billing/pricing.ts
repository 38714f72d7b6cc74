import { timesDecimalCents } from '../../common/money';

/**
 * What a quantity costs under a price's scheme, in cents. Prices come from
 * the catalog; this is the billing side's reading of them.
 */
export type PriceScheme = 'standard' | 'package' | 'graduated' | 'volume';

export interface PriceTier {
  last_unit: number | 'inf';
  unit_price: number;
  unit_price_decimal?: string | null;
  fixed_fee?: number | null;
}

export interface PriceTerms {
  scheme: PriceScheme;
  unitPrice: number | null;
  /** Cents with a fractional part (usage-based prices), e.g. "0.25". */
  unitPriceDecimal: string | null;
  packageSize: number;
  tiers: PriceTier[] | null;
}

function unitAmount(
  quantity: number,
  unitPrice: number | null,
  unitPriceDecimal: string | null | undefined,
): number {
  if (unitPriceDecimal) return timesDecimalCents(quantity, unitPriceDecimal);
  return quantity * (unitPrice ?? 0);
}

const tierCap = (tier: PriceTier) =>
  tier.last_unit === 'inf' ? Infinity : tier.last_unit;

export function amountFor(terms: PriceTerms, quantity: number): number {
  if (quantity <= 0) return 0;
  switch (terms.scheme) {
    case 'standard':
      return unitAmount(quantity, terms.unitPrice, terms.unitPriceDecimal);
    case 'package': {
      // Packages are sold whole: 11 units in packages of 10 cost two packages.
      const packages = Math.ceil(quantity / Math.max(1, terms.packageSize));
      return unitAmount(packages, terms.unitPrice, terms.unitPriceDecimal);
    }
    case 'graduated': {
      let total = 0;
      let previousCap = 0;
      for (const tier of terms.tiers ?? []) {
        if (quantity <= previousCap) break;
        const units = Math.min(quantity, tierCap(tier)) - previousCap;
        total +=
          unitAmount(units, tier.unit_price, tier.unit_price_decimal) +
          (tier.fixed_fee ?? 0);
        previousCap = tierCap(tier);
      }
      return total;
    }
    case 'volume': {
      const tiers = terms.tiers ?? [];
      const tier =
        tiers.find((t) => quantity <= tierCap(t)) ?? tiers[tiers.length - 1];
      if (!tier) return 0;
      return (
        unitAmount(quantity, tier.unit_price, tier.unit_price_decimal) +
        (tier.fixed_fee ?? 0)
      );
    }
  }
}
