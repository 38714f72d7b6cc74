import {
  IntervalUnit,
  PriceCategory,
  PriceScheme,
  PriceTier,
  TaxCode,
  UsageAggregation,
} from './price.entity';
import { CatalogErrors } from './catalog.errors';

/** A price as a client sends it (already type-checked by the DTO). */
export interface PriceInput {
  category: PriceCategory;
  scheme?: PriceScheme;
  unit_price?: number | null;
  unit_price_decimal?: string | null;
  renewal_interval_unit?: IntervalUnit | null;
  renewal_interval_quantity?: number | null;
  trial_interval_unit?: IntervalUnit | null;
  trial_interval_quantity?: number | null;
  usage_aggregation?: UsageAggregation | null;
  package_size?: number | null;
  tiers?: unknown[] | null;
  min_price?: number | null;
  suggested_price?: number | null;
  setup_fee_enabled?: boolean | null;
  setup_fee?: number | null;
  tax_code?: TaxCode;
}

/** The stored form of a valid price. */
export interface PriceFields {
  category: PriceCategory;
  scheme: PriceScheme;
  usageAggregation: UsageAggregation | null;
  unitPrice: number | null;
  unitPriceDecimal: string | null;
  setupFeeEnabled: boolean | null;
  setupFee: number | null;
  packageSize: number;
  tiers: PriceTier[] | null;
  renewalIntervalUnit: IntervalUnit | null;
  renewalIntervalQuantity: number | null;
  trialIntervalUnit: IntervalUnit | null;
  trialIntervalQuantity: number | null;
  minPrice: number | null;
  suggestedPrice: number | null;
  taxCode: TaxCode;
}

/**
 * A usage-based (metered) price: billed in arrears for the usage reported in
 * each period, so nothing of it is due when the subscription starts.
 */
export function isUsageBased(price: Pick<PriceFields, 'usageAggregation'>) {
  return price.usageAggregation !== null;
}

const DECIMAL = /^\d{1,10}(\.\d{1,12})?$/;
const isCount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const given = (v: unknown) => v !== undefined && v !== null;

/**
 * The rules a price must satisfy, checked together so the client sees every
 * problem at once. Amounts are integer cents; `unit_price_decimal` carries
 * fractional cents and exists only for usage-based prices.
 */
export function normalizePrice(input: PriceInput): PriceFields {
  const errors: { field: string; detail: string }[] = [];
  const fail = (attribute: string, detail: string) =>
    errors.push({ detail, field: attribute });

  const category = input.category;
  const scheme = input.scheme ?? 'standard';
  const subscription = category === 'subscription';
  const usageAggregation = input.usage_aggregation ?? null;
  const tiered = scheme === 'graduated' || scheme === 'volume';

  if (!subscription) {
    for (const name of [
      'renewal_interval_unit',
      'renewal_interval_quantity',
      'trial_interval_unit',
      'trial_interval_quantity',
      'setup_fee_enabled',
      'setup_fee',
    ] as const) {
      if (given(input[name]))
        fail(name, `${name} applies only to subscription prices.`);
    }
    if (usageAggregation !== null)
      fail(
        'usage_aggregation',
        'Usage-based billing applies only to subscription prices.',
      );
  } else {
    if (!given(input.renewal_interval_unit))
      fail(
        'renewal_interval_unit',
        'A subscription price needs a renewal interval (day, week, month or year).',
      );
    if (
      given(input.trial_interval_unit) !== given(input.trial_interval_quantity)
    )
      fail(
        given(input.trial_interval_unit)
          ? 'trial_interval_quantity'
          : 'trial_interval_unit',
        'A trial needs both trial_interval_unit and trial_interval_quantity.',
      );
    if (input.setup_fee_enabled === true && !given(input.setup_fee))
      fail(
        'setup_fee',
        'A setup fee is required when setup_fee_enabled is true.',
      );
    if (input.setup_fee_enabled !== true && given(input.setup_fee))
      fail('setup_fee', 'setup_fee needs setup_fee_enabled set to true.');
  }

  if (given(input.unit_price_decimal)) {
    if (usageAggregation === null)
      fail(
        'unit_price_decimal',
        'unit_price_decimal is only for usage-based prices.',
      );
    else if (!DECIMAL.test(String(input.unit_price_decimal)))
      fail(
        'unit_price_decimal',
        'unit_price_decimal must be a non-negative decimal number of cents, such as "0.25".',
      );
  }

  if (
    scheme !== 'package' &&
    given(input.package_size) &&
    input.package_size !== 1
  )
    fail('package_size', 'package_size applies only to the package scheme.');

  let tiers: PriceTier[] | null = null;
  if (tiered) {
    tiers = normalizeTiers(input.tiers, fail);
    if (given(input.unit_price) || given(input.unit_price_decimal))
      fail(
        given(input.unit_price) ? 'unit_price' : 'unit_price_decimal',
        'Graduated and volume prices take their unit prices from tiers.',
      );
  } else if (given(input.tiers)) {
    fail('tiers', 'Tiers apply only to the graduated and volume schemes.');
  }

  const pwyw = category === 'pwyw';
  if (!pwyw) {
    if (given(input.min_price))
      fail('min_price', 'min_price applies only to pay-what-you-want prices.');
    if (given(input.suggested_price))
      fail(
        'suggested_price',
        'suggested_price applies only to pay-what-you-want prices.',
      );
  } else {
    if (!given(input.min_price))
      fail('min_price', 'A pay-what-you-want price needs a min_price.');
    if (
      given(input.min_price) &&
      given(input.suggested_price) &&
      input.suggested_price! < input.min_price!
    )
      fail('suggested_price', 'suggested_price cannot be below min_price.');
  }

  let unitPrice = input.unit_price ?? null;
  if (category === 'lead_magnet') {
    if (unitPrice !== null && unitPrice !== 0)
      fail('unit_price', 'A lead magnet is free: unit_price must be 0.');
    unitPrice = 0;
  } else if (pwyw) {
    unitPrice ??= input.min_price ?? null;
  } else if (
    !tiered &&
    unitPrice === null &&
    !(usageAggregation !== null && given(input.unit_price_decimal))
  ) {
    fail('unit_price', 'unit_price is required (integer cents).');
  }

  if (errors.length > 0) throw CatalogErrors.invalidPrice(errors);
  return {
    category,
    scheme,
    usageAggregation,
    unitPrice,
    unitPriceDecimal: input.unit_price_decimal ?? null,
    setupFeeEnabled: subscription ? (input.setup_fee_enabled ?? false) : null,
    setupFee: subscription ? (input.setup_fee ?? null) : null,
    packageSize: scheme === 'package' ? (input.package_size ?? 1) : 1,
    tiers,
    renewalIntervalUnit: subscription ? input.renewal_interval_unit! : null,
    renewalIntervalQuantity: subscription
      ? (input.renewal_interval_quantity ?? 1)
      : null,
    trialIntervalUnit: input.trial_interval_unit ?? null,
    trialIntervalQuantity: input.trial_interval_quantity ?? null,
    minPrice: pwyw ? input.min_price! : null,
    suggestedPrice: pwyw ? (input.suggested_price ?? null) : null,
    taxCode: input.tax_code ?? 'eservice',
  };
}

/**
 * The per-unit amount in cents a price shows as a single number (a product's
 * `price`, a variant's deprecated `price`): the unit price, or the first
 * tier's for tiered prices.
 */
export function headlineUnitPrice(
  price: Pick<PriceFields, 'unitPrice' | 'tiers'>,
): number {
  return price.unitPrice ?? price.tiers?.[0]?.unit_price ?? 0;
}

function normalizeTiers(
  raw: unknown[] | null | undefined,
  fail: (attribute: string, detail: string) => void,
): PriceTier[] | null {
  if (!Array.isArray(raw) || raw.length === 0) {
    fail('tiers', 'Graduated and volume prices need at least one tier.');
    return null;
  }
  const tiers: PriceTier[] = [];
  let previous = 0;
  raw.forEach((item, index) => {
    const at = `tiers/${index}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      fail(at, 'A tier is an object with last_unit, unit_price and fixed_fee.');
      return;
    }
    const tier = item as Record<string, unknown>;
    const unknown = Object.keys(tier).filter(
      (k) =>
        ![
          'last_unit',
          'unit_price',
          'unit_price_decimal',
          'fixed_fee',
        ].includes(k),
    );
    for (const name of unknown)
      fail(`${at}/${name}`, `Unknown tier field "${name}".`);
    const isLast = index === raw.length - 1;
    const lastUnit = tier.last_unit;
    if (isLast) {
      if (lastUnit !== 'inf')
        fail(`${at}/last_unit`, 'The last tier must have last_unit "inf".');
    } else if (!isCount(lastUnit) || lastUnit <= previous) {
      fail(
        `${at}/last_unit`,
        'last_unit must be an integer greater than the previous tier’s.',
      );
    } else {
      previous = lastUnit;
    }
    if (!isCount(tier.unit_price))
      fail(
        `${at}/unit_price`,
        'unit_price must be a non-negative integer (cents).',
      );
    const fixedFee = tier.fixed_fee ?? 0;
    if (!isCount(fixedFee))
      fail(
        `${at}/fixed_fee`,
        'fixed_fee must be a non-negative integer (cents).',
      );
    const decimal = tier.unit_price_decimal ?? null;
    if (
      decimal !== null &&
      (typeof decimal !== 'string' || !DECIMAL.test(decimal))
    )
      fail(
        `${at}/unit_price_decimal`,
        'unit_price_decimal must be a decimal string such as "0.25".',
      );
    tiers.push({
      last_unit: lastUnit as number | 'inf',
      unit_price: tier.unit_price as number,
      unit_price_decimal: decimal as string | null,
      fixed_fee: fixedFee as number,
    });
  });
  return tiers;
}
