import { setupFeeAtSignup, trialOf, unitPriceAtSignup } from './signup-charge';

const plan = {
  category: 'subscription' as const,
  trialIntervalUnit: null,
  trialIntervalQuantity: null,
  usageAggregation: null,
};
const trial = {
  ...plan,
  trialIntervalUnit: 'week' as const,
  trialIntervalQuantity: 2,
};

describe('the charge at signup', () => {
  it('starts a trial for a subscription price with one, unless skipped', () => {
    expect(trialOf(trial, false)).toEqual({ unit: 'week', quantity: 2 });
    expect(trialOf(trial, true)).toBeNull();
    expect(trialOf(plan, false)).toBeNull();
    expect(trialOf({ ...trial, category: 'one_time' }, false)).toBeNull();
  });

  it('defers the price of a trial or a metered plan (only the setup fee is due)', () => {
    expect(unitPriceAtSignup(plan, false, 1500)).toBe(1500);
    expect(unitPriceAtSignup(trial, false, 1500)).toBe(0);
    expect(unitPriceAtSignup(trial, true, 1500)).toBe(1500);
    expect(
      unitPriceAtSignup({ ...plan, usageAggregation: 'sum' }, true, 1500),
    ).toBe(0);
    expect(
      unitPriceAtSignup({ ...plan, category: 'one_time' }, false, 900),
    ).toBe(900);
  });

  it('adds the setup fee only when the price enables it', () => {
    expect(setupFeeAtSignup({ setupFeeEnabled: true, setupFee: 500 })).toBe(
      500,
    );
    expect(setupFeeAtSignup({ setupFeeEnabled: false, setupFee: 500 })).toBe(0);
    expect(setupFeeAtSignup({ setupFeeEnabled: null, setupFee: null })).toBe(0);
  });
});
