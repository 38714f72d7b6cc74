import { thrownAppError } from '../../../test/support/app-error';
import { normalizePrice, PriceInput } from './price-rules';
import { productPricing } from './product-pricing';
import { sourceOf } from '../../common/app-error';

const pointers = (input: PriceInput) =>
  thrownAppError(() => normalizePrice(input)).errors.map(
    (e) => (sourceOf(e) as { pointer: string }).pointer,
  );

describe('normalizePrice', () => {
  it('fills defaults for a one-time standard price', () => {
    expect(
      normalizePrice({ category: 'one_time', unit_price: 999 }),
    ).toMatchObject({
      scheme: 'standard',
      unitPrice: 999,
      packageSize: 1,
      tiers: null,
      renewalIntervalUnit: null,
      setupFeeEnabled: null,
      taxCode: 'eservice',
    });
  });

  it('requires a renewal interval on subscriptions and defaults its quantity to 1', () => {
    expect(pointers({ category: 'subscription', unit_price: 500 })).toEqual([
      '/data/attributes/renewal_interval_unit',
    ]);
    expect(
      normalizePrice({
        category: 'subscription',
        unit_price: 500,
        renewal_interval_unit: 'month',
      }),
    ).toMatchObject({ renewalIntervalQuantity: 1, setupFeeEnabled: false });
  });

  it('keeps subscription-only fields off other categories', () => {
    expect(
      pointers({
        category: 'one_time',
        unit_price: 1,
        renewal_interval_unit: 'month',
        usage_aggregation: 'sum',
      }),
    ).toEqual([
      '/data/attributes/renewal_interval_unit',
      '/data/attributes/usage_aggregation',
    ]);
  });

  it('accepts tiers only on graduated and volume schemes, validating each', () => {
    expect(
      pointers({
        category: 'one_time',
        unit_price: 1,
        tiers: [{ last_unit: 'inf', unit_price: 1, fixed_fee: 0 }],
      }),
    ).toEqual(['/data/attributes/tiers']);
    expect(
      pointers({
        category: 'subscription',
        scheme: 'volume',
        renewal_interval_unit: 'month',
        tiers: [
          { last_unit: 10, unit_price: -1 },
          { last_unit: 5, unit_price: 1 },
        ],
      }),
    ).toEqual([
      '/data/attributes/tiers/0/unit_price',
      '/data/attributes/tiers/1/last_unit',
    ]);
    const graduated = normalizePrice({
      category: 'subscription',
      scheme: 'graduated',
      renewal_interval_unit: 'month',
      usage_aggregation: 'sum',
      tiers: [
        { last_unit: 100, unit_price: 10 },
        { last_unit: 'inf', unit_price: 5, fixed_fee: 100 },
      ],
    });
    expect(graduated.tiers).toEqual([
      {
        last_unit: 100,
        unit_price: 10,
        unit_price_decimal: null,
        fixed_fee: 0,
      },
      {
        last_unit: 'inf',
        unit_price: 5,
        unit_price_decimal: null,
        fixed_fee: 100,
      },
    ]);
  });

  it('allows unit_price_decimal only on usage-based prices', () => {
    expect(
      pointers({
        category: 'one_time',
        unit_price: 1,
        unit_price_decimal: '0.5',
      }),
    ).toEqual(['/data/attributes/unit_price_decimal']);
    expect(
      normalizePrice({
        category: 'subscription',
        renewal_interval_unit: 'month',
        usage_aggregation: 'sum',
        unit_price_decimal: '0.25',
      }),
    ).toMatchObject({ unitPrice: null, unitPriceDecimal: '0.25' });
  });

  it('checks pay-what-you-want and lead-magnet amounts', () => {
    expect(pointers({ category: 'pwyw' })).toEqual([
      '/data/attributes/min_price',
    ]);
    expect(
      pointers({ category: 'pwyw', min_price: 500, suggested_price: 100 }),
    ).toEqual(['/data/attributes/suggested_price']);
    expect(normalizePrice({ category: 'pwyw', min_price: 500 }).unitPrice).toBe(
      500,
    );
    expect(pointers({ category: 'lead_magnet', unit_price: 5 })).toEqual([
      '/data/attributes/unit_price',
    ]);
    expect(normalizePrice({ category: 'lead_magnet' }).unitPrice).toBe(0);
  });
});

describe('productPricing', () => {
  const v = (
    id: number,
    status: 'pending' | 'draft' | 'published',
    unitPrice: number | null,
    sort = id,
  ) => ({
    id,
    productId: 1,
    uuid: `u${id}`,
    status,
    sort,
    unitPrice,
  });

  it('uses the default variant of a single-variant product, without a range', () => {
    expect(productPricing([v(1, 'pending', 900)])).toEqual({
      price: 900,
      fromPrice: null,
      toPrice: null,
      buyNowVariantUuid: 'u1',
    });
  });

  it('ranges over the published variants once there are several', () => {
    expect(
      productPricing([
        v(1, 'pending', 100),
        v(2, 'published', 900, 2),
        v(3, 'published', 300, 1),
        v(4, 'draft', 5),
      ]),
    ).toEqual({
      price: 300,
      fromPrice: 300,
      toPrice: 900,
      buyNowVariantUuid: 'u3',
    });
  });
});
